package io.github.redlock.embedded.boot;

import java.net.URI;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.aot.AotDetector;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.test.generate.CompilerFiles;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.test.context.BootstrapUtils;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.aot.AotContextLoader;
import org.springframework.test.context.aot.AotTestContextInitializers;
import org.springframework.test.context.aot.TestContextAotGenerator;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.ThrowingConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @SpringBootTest} with {@code redlock-embedded} on its class path goes through
 * Spring's AOT test processing (what {@code spring-boot:process-test-aot} and a native
 * test build run), and its context, restored from the generated code, still starts the
 * local nodes and stops them when it closes. The processing failed before the nodes' bean
 * was left out of it: "Error processing bean with name 'redlockEmbeddedNodes': instance
 * supplier is not supported".
 */
@CompileWithForkedClassLoader
class EmbeddedNodesAotTests {

	@Test
	void developmentModeSurvivesAotProcessingAndStartsNodesAtRunTime() {
		InMemoryGeneratedFiles generatedFiles = new InMemoryGeneratedFiles();
		new TestContextAotGenerator(generatedFiles).processAheadOfTime(Stream.of(DevelopmentModeTest.class));
		TestCompiler.forSystem()
			.with(CompilerFiles.from(generatedFiles))
			.compile(ThrowingConsumer.of((compiled) -> assertNodesRunInAotMode(DevelopmentModeTest.class)));
	}

	private void assertNodesRunInAotMode(Class<?> testClass) throws Exception {
		try {
			System.setProperty(AotDetector.AOT_ENABLED, "true");
			resetAotFactories();
			MergedContextConfiguration config = BootstrapUtils.resolveTestContextBootstrapper(testClass)
				.buildMergedContextConfiguration();
			ApplicationContextInitializer<ConfigurableApplicationContext> initializer = new AotTestContextInitializers()
				.getContextInitializer(testClass);
			assertThat(initializer).as("the AOT-generated initializer").isNotNull();
			String node;
			try (ConfigurableApplicationContext context = (ConfigurableApplicationContext) ((AotContextLoader) config
				.getContextLoader()).loadContextForAotRuntime(config, initializer)) {
				node = context.getEnvironment().getProperty("redlock.nodes");
				assertThat(node).as("the node the development mode started").startsWith("redis://127.0.0.1:");
				assertThat(EmbeddedNodesEnvironmentPostProcessorTests.accepts(URI.create(node).getPort())).isTrue();
			}
			assertThat(EmbeddedNodesEnvironmentPostProcessorTests.accepts(URI.create(node).getPort()))
				.as("the node stopped with the context")
				.isFalse();
		}
		finally {
			System.clearProperty(AotDetector.AOT_ENABLED);
			resetAotFactories();
		}
	}

	private void resetAotFactories() {
		for (String factory : new String[] { "org.springframework.test.context.aot.AotTestAttributesFactory",
				"org.springframework.test.context.aot.AotTestContextInitializersFactory" }) {
			ReflectionTestUtils.invokeMethod(ClassUtils.resolveClassName(factory, null), "reset");
		}
	}

	@SpringBootTest(classes = Empty.class, webEnvironment = WebEnvironment.NONE,
			properties = "redlock.embedded.nodes=1")
	static class DevelopmentModeTest {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	static class Empty {

	}

}
