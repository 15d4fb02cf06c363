package io.github.redlock.embedded.boot;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.DynamicPropertyRegistrar;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nodes a {@link DynamicPropertyRegistrar} bean supplies (Spring's way for a test's
 * configuration to add properties, such as from a container bean) win over the
 * development mode, though they exist only once that bean has run, late in the refresh.
 * This test failed before the development mode decided that late.
 */
@SpringBootTest(classes = DynamicPropertyRegistrarNodesTests.Nodes.class)
class DynamicPropertyRegistrarNodesTests {

	@Autowired
	private ConfigurableApplicationContext context;

	@Test
	void suppliedNodesWinAndNoLocalNodeStarts() {
		assertThat(this.context.getEnvironment().getProperty("redlock.nodes")).isEqualTo("redis://10.0.0.9:6379");
		assertThat(this.context.getEnvironment()
			.getPropertySources()
			.contains(EmbeddedNodesEnvironmentPostProcessor.PROPERTY_SOURCE_NAME)).isFalse();
	}

	@Configuration(proxyBeanMethods = false)
	static class Nodes {

		@Bean
		static DynamicPropertyRegistrar redlockNodes() {
			return (registry) -> registry.add("redlock.nodes", () -> "redis://10.0.0.9:6379");
		}

	}

}
