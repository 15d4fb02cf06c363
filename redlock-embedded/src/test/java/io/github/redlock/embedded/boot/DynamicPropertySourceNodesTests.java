package io.github.redlock.embedded.boot;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nodes a test supplies through {@code @DynamicPropertySource} win over the development
 * mode: no local node starts, and the restart guard is left alone. Spring adds these
 * properties after environment post-processors have run, so the development mode used to
 * start five nodes anyway (this test failed before the decision moved to the refresh of
 * the context).
 */
@SpringBootTest(classes = DynamicPropertySourceNodesTests.Empty.class)
class DynamicPropertySourceNodesTests {

	@DynamicPropertySource
	static void nodes(DynamicPropertyRegistry registry) {
		registry.add("redlock.nodes", () -> "redis://10.0.0.1:6379,redis://10.0.0.2:6379,redis://10.0.0.3:6379");
	}

	@Autowired
	private ConfigurableApplicationContext context;

	@Test
	void suppliedNodesWinAndNoLocalNodeStarts() {
		assertThat(this.context.getEnvironment().getProperty("redlock.nodes"))
			.isEqualTo("redis://10.0.0.1:6379,redis://10.0.0.2:6379,redis://10.0.0.3:6379");
		assertThat(this.context.getEnvironment()
			.getPropertySources()
			.contains(EmbeddedNodesEnvironmentPostProcessor.PROPERTY_SOURCE_NAME)).isFalse();
		assertThat(this.context.getEnvironment().getProperty("redlock.restart-guard")).isNull();
	}

	@Configuration(proxyBeanMethods = false)
	static class Empty {

	}

}
