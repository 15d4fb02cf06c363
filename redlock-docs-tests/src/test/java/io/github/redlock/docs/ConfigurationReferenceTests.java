package io.github.redlock.docs;

import java.io.InputStream;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/configuration.md lists exactly the properties of the generated
 * {@code spring-configuration-metadata.json} of every module on the class path whose
 * names belong to redlock, each with the default and the description that an IDE shows
 * (issue 26, item 4). A property added, renamed or removed in code fails here until the
 * page says the same.
 */
class ConfigurationReferenceTests {

	static final Path PAGE = Path.of("docs", "configuration.md");

	static final String SECTION = "## Properties";

	private static final Pattern ROW = Pattern.compile("^\\| `([a-z0-9.\\[\\]-]+)` \\| (.*?) \\| (.*) \\|$");

	@Test
	void theReferenceListsEveryPropertyWithItsDefaultAndDescription() throws Exception {
		Map<String, JsonNode> metadata = metadata();
		assertThat(metadata).as("redlock properties in the metadata").containsKey("redlock.nodes");
		Map<String, String[]> rows = rows();
		List<String> problems = new ArrayList<>();
		for (Map.Entry<String, JsonNode> entry : metadata.entrySet()) {
			String name = entry.getKey();
			String description = entry.getValue().path("description").asText();
			String expectedDefault = defaultOf(entry.getValue());
			String[] row = rows.get(name);
			if (row == null) {
				problems.add(PAGE + " lacks " + name + ": add the row\n    | `" + name + "` | " + expectedDefault
						+ " | " + description + " |\n  to its \"" + SECTION + "\" table");
				continue;
			}
			if (!row[0].equals(expectedDefault)) {
				problems.add(PAGE + " gives " + name + " the default " + row[0] + ", the metadata " + expectedDefault
						+ ": write " + expectedDefault);
			}
			String documented = plain(row[1]);
			if (!documented.startsWith(plain(description))) {
				problems.add(PAGE + " describes " + name + " as\n    " + row[1] + "\n  but the IDE shows\n    "
						+ description + "\n  start the cell with the IDE's text (more may follow it), or change the"
						+ " field's Javadoc");
			}
		}
		for (String name : rows.keySet()) {
			if (!metadata.containsKey(name)) {
				problems.add(PAGE + " lists " + name + ", which no module's spring-configuration-metadata.json has:"
						+ " remove the row (or add the property, with its metadata)");
			}
		}
		assertThat(problems).as("the configuration reference and the metadata disagree").isEmpty();
	}

	/** Every property on the class path whose name belongs to redlock, by name. */
	static Map<String, JsonNode> metadata() throws Exception {
		Map<String, JsonNode> properties = new TreeMap<>();
		ObjectMapper json = new ObjectMapper();
		for (URL url : Collections.list(ConfigurationReferenceTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"))) {
			try (InputStream in = url.openStream()) {
				for (JsonNode property : json.readTree(in).path("properties")) {
					String name = property.get("name").asText();
					if (name.startsWith("redlock.") || name.contains(".redlock.") || name.endsWith(".redlock")) {
						properties.put(name, property);
					}
				}
			}
		}
		return properties;
	}

	/** The rows of the page's properties table: name to {default, description}. */
	static Map<String, String[]> rows() {
		List<String> lines = Docs.lines(PAGE);
		int start = lines.indexOf(SECTION);
		assertThat(start).as(PAGE + " has a \"" + SECTION + "\" heading").isNotNegative();
		Map<String, String[]> rows = new LinkedHashMap<>();
		for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
			Matcher row = ROW.matcher(lines.get(i));
			if (row.matches()) {
				String[] previous = rows.put(row.group(1), new String[] { row.group(2).trim(), row.group(3).trim() });
				assertThat(previous).as(PAGE + " lists " + row.group(1) + " twice").isNull();
			}
		}
		return rows;
	}

	/** The default as the page writes it: in backticks, or {@code (none)}. */
	static String defaultOf(JsonNode property) {
		JsonNode value = property.get("defaultValue");
		if (value == null || value.isNull()) {
			return "(none)";
		}
		if (value.isArray()) {
			List<String> items = new ArrayList<>();
			value.forEach((item) -> items.add(item.asText()));
			return "`" + String.join(",", items) + "`";
		}
		return "`" + value.asText() + "`";
	}

	private static String plain(String text) {
		return text.replace("`", "").replace("\\|", "|").replaceAll("\\s+", " ").trim();
	}

}
