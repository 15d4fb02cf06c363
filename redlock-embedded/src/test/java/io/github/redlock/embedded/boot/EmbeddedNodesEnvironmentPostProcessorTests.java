package io.github.redlock.embedded.boot;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class EmbeddedNodesEnvironmentPostProcessorTests {

	private static ConfigurableApplicationContext run(String... args) {
		SpringApplication application = new SpringApplication(Empty.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		return application.run(args);
	}

	@Test
	void withoutNodesLocalNodesStartAndStopWithTheApplication(CapturedOutput output) {
		List<URI> nodes;
		try (ConfigurableApplicationContext context = run("--redlock.embedded.nodes=3")) {
			String property = context.getEnvironment().getProperty("redlock.nodes");
			nodes = Arrays.stream(property.split(",")).map(URI::create).toList();
			assertThat(nodes).hasSize(3).allSatisfy((uri) -> {
				assertThat(uri.getHost()).isEqualTo("127.0.0.1");
				assertThat(accepts(uri.getPort())).isTrue();
			});
			assertThat(context.getEnvironment().getProperty("redlock.restart-guard")).isEqualTo("false");
			assertThat(output).contains("started 3 embedded redis-server nodes for DEVELOPMENT AND TESTS ONLY");
			// the guard is off, and one INFO line says so and why (it used to be silent)
			assertThat(output.getOut().lines().filter((line) -> line.contains("redlock.restart-guard"))).singleElement()
				.satisfies((line) -> assertThat(line).contains("INFO",
						"redlock.restart-guard=false for the embedded nodes: they start empty",
						"out of quorums for redlock.max-ttl"));
		}
		assertThat(nodes).noneMatch((uri) -> accepts(uri.getPort()));
		assertThat(output).contains("Stopped the embedded redis-server nodes");
	}

	@Test
	void outsideATestWithoutAnOptInStartUpIsRefusedWithAFailureAnalysis(CapturedOutput output) throws Exception {
		// issue 25, item 6; failed before the fix: an application's own thread (no test
		// framework on its stack, as in production) started local nodes, and one INFO
		// line said so
		Throwable failure = runOutsideATest("--redlock.embedded.nodes=1");
		assertThat(failure).isNotNull();
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("redlock.nodes is not set")
			.contains("redlock.embedded.enabled=true")
			.doesNotContain("started 1 embedded redis-server nodes");
	}

	@Test
	void outsideATestAnExplicitOptInStartsLocalNodes(CapturedOutput output) throws Exception {
		Throwable failure = runOutsideATest("--redlock.embedded.nodes=1", "--redlock.embedded.enabled=true");
		assertThat(failure).isNull();
		assertThat(output).contains("started 1 embedded redis-server nodes")
			.contains("Stopped the embedded redis-server nodes");
	}

	/**
	 * Runs and closes the application on a thread of its own, whose stack holds no test
	 * framework, as an application's main thread.
	 */
	private static Throwable runOutsideATest(String... args) throws InterruptedException {
		java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
		Thread main = new Thread(() -> {
			try (ConfigurableApplicationContext context = run(args)) {
				assertThat(context.isActive()).isTrue();
			}
			catch (Throwable ex) {
				failure.set(ex);
			}
		}, "main");
		main.start();
		main.join();
		return failure.get();
	}

	@Test
	void configuredNodesAreNeverReplaced(CapturedOutput output) {
		try (ConfigurableApplicationContext context = run("--redlock.nodes=redis://10.0.0.1:6379")) {
			assertThat(context.getEnvironment().getProperty("redlock.nodes")).isEqualTo("redis://10.0.0.1:6379");
			assertThat(context.getEnvironment()
				.getPropertySources()
				.contains(EmbeddedNodesEnvironmentPostProcessor.PROPERTY_SOURCE_NAME)).isFalse();
		}
		assertThat(output).doesNotContain("embedded redis-server nodes");
	}

	@Test
	void configuredClustersAreNeverJoinedByLocalNodes(CapturedOutput output) {
		// issue 36; failed before the fix: the development mode looked at redlock.nodes
		// alone, started 5 nodes beside the clusters and set redlock.nodes, which the
		// auto-configuration then refuses beside redlock.clusters
		try (ConfigurableApplicationContext context = run(
				"--redlock.clusters[0]=redis://10.0.1.1:6379,redis://10.0.1.2:6379",
				"--redlock.clusters[1][0]=redis://10.0.2.1:6379")) {
			assertThat(context.getEnvironment().getProperty("redlock.nodes")).isNull();
			assertThat(context.getEnvironment()
				.getPropertySources()
				.contains(EmbeddedNodesEnvironmentPostProcessor.PROPERTY_SOURCE_NAME)).isFalse();
		}
		assertThat(output).doesNotContain("embedded redis-server nodes");
	}

	@Test
	void canBeSwitchedOff() {
		try (ConfigurableApplicationContext context = run("--redlock.embedded.enabled=false")) {
			assertThat(context.getEnvironment().getProperty("redlock.nodes")).isNull();
		}
	}

	@Test
	void explicitRestartGuardSettingIsKept(CapturedOutput output) {
		try (ConfigurableApplicationContext context = run("--redlock.embedded.nodes=1",
				"--redlock.restart-guard=true")) {
			assertThat(context.getEnvironment().getProperty("redlock.restart-guard")).isEqualTo("true");
		}
		assertThat(output).contains("redlock.restart-guard=true as set: the embedded nodes start empty")
			.doesNotContain("redlock.restart-guard=false");
	}

	@Test
	void nodesSuppliedByAnInitializerWin() {
		// set after the environment post-processors ran, as Spring's test support does
		SpringApplication application = new SpringApplication(Empty.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.addInitializers((context) -> TestPropertyValues.of("redlock.nodes=redis://10.0.0.7:6379")
			.applyTo(context.getEnvironment()));
		try (ConfigurableApplicationContext context = application.run()) {
			assertThat(context.getEnvironment().getProperty("redlock.nodes")).isEqualTo("redis://10.0.0.7:6379");
			assertThat(context.getEnvironment()
				.getPropertySources()
				.contains(EmbeddedNodesEnvironmentPostProcessor.PROPERTY_SOURCE_NAME)).isFalse();
		}
	}

	static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Empty {

	}

}
