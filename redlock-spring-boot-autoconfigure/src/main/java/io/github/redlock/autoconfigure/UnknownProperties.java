package io.github.redlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Finds the {@code redlock.*} properties that no redlock module binds (a typo such as
 * {@code redlock.restart-gaurd} or {@code redlock.node}, which Spring Boot ignores
 * silently) and names each with the property it probably meant: the known property
 * nearest by edit distance. The known properties are those of the configuration metadata
 * ({@code META-INF/spring-configuration-metadata.json}) of every jar on the class path,
 * so the development mode's {@code redlock.embedded.*} count where its module is present.
 * Relaxed binding applies ({@code redlock.restartGuard} is
 * {@code redlock.restart-guard}), and a list's or a map's entries belong to it.
 * <p>
 * Environment variables and JVM system properties are not checked: they are the whole
 * process's namespace, shared with tools (a build's {@code -Dredlock.*} switches) and
 * with settings read outside Spring ({@code redlock.redis-server}).
 *
 * @author redlock contributors
 */
final class UnknownProperties {

	private static final Log logger = LogFactory.getLog(RedlockAutoConfiguration.class);

	private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("redlock");

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	private static final Set<String> PROCESS_WIDE = Set.of(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
			StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);

	private UnknownProperties() {
	}

	/**
	 * Checks the environment's {@code redlock.*} properties as the policy says.
	 * @param environment the environment
	 * @param policy what to do with unknown properties
	 * @param classLoader where to find the configuration metadata
	 * @throws InvalidRedlockConfigurationException for unknown properties under
	 * {@link UnknownPropertyPolicy#FAIL}
	 */
	static void check(ConfigurableEnvironment environment, UnknownPropertyPolicy policy,
			@Nullable ClassLoader classLoader) {
		if (policy == UnknownPropertyPolicy.IGNORE) {
			return;
		}
		List<ConfigurationPropertyName> known = known(classLoader);
		// no metadata found (a repackaging that dropped it): nothing can be judged
		List<String> unknown = known.isEmpty() ? List.of() : describeUnknown(environment, known);
		if (unknown.isEmpty()) {
			return;
		}
		if (policy == UnknownPropertyPolicy.FAIL) {
			throw new InvalidRedlockConfigurationException("Unknown redlock properties: " + String.join("; ", unknown),
					"Correct or remove them, or set redlock.unknown-properties=warn to start all the same");
		}
		for (String property : unknown) {
			logger.warn("Unknown redlock property " + property
					+ ": it has no effect (redlock.unknown-properties=fail refuses to start instead)");
		}
	}

	/**
	 * Returns one line per unknown property: its name, where it was set, and the known
	 * property it probably meant.
	 */
	static List<String> describeUnknown(ConfigurableEnvironment environment, List<ConfigurationPropertyName> known) {
		Map<ConfigurationPropertyName, @Nullable Origin> unknown = new LinkedHashMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			Object underlying = source.getUnderlyingSource();
			if (!(source instanceof IterableConfigurationPropertySource iterable)
					|| (underlying instanceof PropertySource<?> propertySource
							&& PROCESS_WIDE.contains(propertySource.getName()))) {
				continue;
			}
			iterable.filter(PREFIX::isAncestorOf).forEach((name) -> {
				ConfigurationPropertyName stem = stem(name);
				if (!isKnown(stem, known) && !unknown.containsKey(stem)) {
					ConfigurationProperty property = iterable.getConfigurationProperty(name);
					unknown.put(stem, (property != null) ? property.getOrigin() : null);
				}
			});
		}
		List<String> described = new ArrayList<>();
		unknown.forEach((name, origin) -> {
			String meant = nearest(name.toString(), known);
			described.add("'" + name + "'" + ((origin != null) ? " (" + origin + ")" : "")
					+ ((meant != null) ? ": did you mean '" + meant + "'?" : ": no redlock property is named so"));
		});
		return described;
	}

	/**
	 * Returns the name without its indexes: {@code redlock.node[0]} is
	 * {@code redlock.node}.
	 */
	private static ConfigurationPropertyName stem(ConfigurationPropertyName name) {
		String text = name.toString();
		int index = text.indexOf('[');
		return (index > 0) ? ConfigurationPropertyName.of(text.substring(0, index)) : name;
	}

	private static boolean isKnown(ConfigurationPropertyName name, List<ConfigurationPropertyName> known) {
		for (ConfigurationPropertyName property : known) {
			if (property.equals(name) || property.isAncestorOf(name)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Returns the known property nearest to {@code name}, if near enough to be a typo of
	 * it: at most a third of the name's last part apart, and at most 3 edits.
	 */
	static @Nullable String nearest(String name, List<ConfigurationPropertyName> known) {
		String lastPart = name.substring(name.lastIndexOf('.') + 1);
		int allowed = Math.min(3, Math.max(1, lastPart.length() / 3));
		String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (ConfigurationPropertyName property : known) {
			String candidate = property.toString();
			int distance = distance(name, candidate);
			if (distance < bestDistance) {
				best = candidate;
				bestDistance = distance;
			}
		}
		return (bestDistance <= allowed) ? best : null;
	}

	/**
	 * The edit distance of two strings, where swapping two neighbours is one edit
	 * ({@code tll} for {@code ttl}): the optimal string alignment distance.
	 */
	static int distance(String a, String b) {
		int[][] d = new int[a.length() + 1][b.length() + 1];
		for (int i = 0; i <= a.length(); i++) {
			d[i][0] = i;
		}
		for (int j = 0; j <= b.length(); j++) {
			d[0][j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			for (int j = 1; j <= b.length(); j++) {
				int cost = (a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1;
				d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
				if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
					d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
				}
			}
		}
		return d[a.length()][b.length()];
	}

	/**
	 * Returns the {@code redlock.*} properties of the configuration metadata on the class
	 * path.
	 */
	@SuppressWarnings("unchecked")
	static List<ConfigurationPropertyName> known(@Nullable ClassLoader classLoader) {
		Set<String> names = new TreeSet<>();
		try {
			ClassLoader loader = (classLoader != null) ? classLoader : UnknownProperties.class.getClassLoader();
			Enumeration<URL> resources = loader.getResources(METADATA);
			while (resources.hasMoreElements()) {
				try (InputStream in = resources.nextElement().openStream()) {
					Map<String, Object> metadata = JsonParserFactory.getJsonParser()
						.parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8));
					Object properties = metadata.get("properties");
					if (properties instanceof List<?> list) {
						for (Object property : list) {
							Object name = ((Map<String, Object>) property).get("name");
							if (name instanceof String text && text.startsWith("redlock.")
									&& ConfigurationPropertyName.isValid(text)) {
								names.add(text);
							}
						}
					}
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			logger.debug("Could not read the configuration metadata; redlock properties are not checked", ex);
			return List.of();
		}
		return names.stream().map(ConfigurationPropertyName::of).toList();
	}

}
