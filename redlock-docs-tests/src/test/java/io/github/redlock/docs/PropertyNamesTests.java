package io.github.redlock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.redlock.observation.RedlockObservationDocumentation;
import io.micrometer.common.docs.KeyName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code redlock.*} name in README.md, CONTRIBUTING.md, CHANGELOG.md and docs/ is
 * something that exists (issue 41, item 7): a property of the generated configuration
 * metadata (or a group of them, as {@code redlock.ssl.*} or {@code redlock.default-*}), a
 * meter the starter registers, an observation key name, or a property of the build's
 * {@code pom.xml} files. A name written {@code -Dredlock.x} is a system property of a
 * command line and is not read here. A typo'd {@code redlock.restart-gaurd} on a page
 * failed this test, naming the page and the line; the pages on typo'd properties now show
 * that very name as their example, so it alone is let through ({@link #SHOWN_AS_TYPOS}).
 */
class PropertyNamesTests {

	/**
	 * Misspelled names the pages show on purpose, as what start-up names with the
	 * property meant ({@code redlock.unknown-properties}).
	 */
	private static final Set<String> SHOWN_AS_TYPOS = Set.of("redlock.restart-gaurd");

	private static final Pattern NAME = Pattern
		.compile("(?<![\\w.$])redlock\\.[a-z0-9-]+(?:\\.[a-z0-9-]+|\\[\\d+\\])*");

	@Test
	void everyRedlockNameOnAPageExists() throws Exception {
		Map<String, JsonNode> metadata = ConfigurationReferenceTests.metadata();
		Set<String> known = new TreeSet<>(metadata.keySet());
		known.addAll(StarterMeters.names());
		known.addAll(observationKeyNames());
		known.addAll(buildProperties());
		List<String> problems = new ArrayList<>();
		int checked = 0;
		for (Path file : Docs.markdownFiles()) {
			List<String> lines = Docs.lines(file);
			for (int i = 0; i < lines.size(); i++) {
				Matcher name = NAME.matcher(lines.get(i));
				while (name.find()) {
					checked++;
					String plain = name.group().replaceAll("\\[\\d+\\]", "");
					if (!exists(plain, known) && !SHOWN_AS_TYPOS.contains(plain)) {
						problems.add(file + ":" + (i + 1) + " names " + name.group()
								+ ", which is no property in the metadata, no meter the starter registers, no"
								+ " observation key and no build property");
					}
				}
			}
		}
		assertThat(checked).as("redlock names on the pages").isGreaterThan(100);
		assertThat(problems).as("redlock names that exist nowhere").isEmpty();
	}

	/**
	 * The name, or a group of names it begins ("redlock.ssl" of "redlock.ssl.bundle").
	 */
	private static boolean exists(String name, Set<String> known) {
		if (known.contains(name)) {
			return true;
		}
		String group = name.endsWith("-") ? name : name + ".";
		return known.stream().anyMatch((candidate) -> candidate.startsWith(group));
	}

	private static Set<String> observationKeyNames() {
		Set<String> names = new TreeSet<>();
		for (RedlockObservationDocumentation observation : RedlockObservationDocumentation.values()) {
			for (KeyName key : observation.getLowCardinalityKeyNames()) {
				names.add(key.asString());
			}
			for (KeyName key : observation.getHighCardinalityKeyNames()) {
				names.add(key.asString());
			}
		}
		return names;
	}

	/** The {@code redlock.*} properties that the build's pom.xml files define or read. */
	private static Set<String> buildProperties() {
		Set<String> names = new TreeSet<>();
		Pattern property = Pattern.compile("(?:<|\\$\\{)(redlock\\.[a-z0-9.-]+)(?:>|\\})");
		try (Stream<Path> poms = Files.walk(Docs.root(), 2)) {
			for (Path pom : poms.filter((path) -> path.getFileName().toString().equals("pom.xml")).toList()) {
				Matcher name = property.matcher(Files.readString(pom));
				while (name.find()) {
					names.add(name.group(1));
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return names;
	}

}
