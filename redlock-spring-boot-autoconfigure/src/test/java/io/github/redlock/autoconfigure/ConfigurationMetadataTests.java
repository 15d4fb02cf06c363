package io.github.redlock.autoconfigure;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reads the metadata that the configuration processor generated: IDEs show it.
 */
class ConfigurationMetadataTests {

	@Test
	void everyPropertyHasADescriptionAndEveryPropertyButTheNodesADefault() throws Exception {
		JsonNode metadata;
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("generated metadata").isNotNull();
			metadata = new ObjectMapper().readTree(in);
		}
		List<String> names = new ArrayList<>();
		for (JsonNode property : metadata.get("properties")) {
			String name = property.get("name").asText();
			names.add(name);
			assertThat(property.path("description").asText()).as("description of %s", name)
				.isNotBlank()
				.doesNotStartWith("The ")
				.doesNotStartWith("A ")
				.endsWith(".");
			if (property.get("type").asText().equals("java.lang.Boolean")) {
				assertThat(property.path("description").asText()).as("description of %s", name).startsWith("Whether");
			}
			// no default by nature: the members, secrets, a bundle name, and TLS implied
			// by a bundle
			if (!List
				.of("redlock.nodes", "redlock.clusters", "redlock.username", "redlock.password", "redlock.ssl.bundle",
						"redlock.ssl.enabled")
				.contains(name)) {
				assertThat(property.has("defaultValue")).as("default of %s", name).isTrue();
			}
		}
		assertThat(names).contains("redlock.enabled", "redlock.nodes", "redlock.clusters", "redlock.key-prefix",
				"redlock.default-ttl", "redlock.default-wait-time", "redlock.node-timeout", "redlock.connect-timeout",
				"redlock.drift-factor", "redlock.retry-delay", "redlock.retry-jitter", "redlock.max-ttl",
				"redlock.max-hold", "redlock.fencing-retention", "redlock.restart-guard", "redlock.accept-eviction",
				"redlock.order", "redlock.max-keys", "redlock.username", "redlock.password", "redlock.ssl.enabled",
				"redlock.ssl.bundle", "management.health.redlock.enabled");
	}

}
