package io.github.redlock.autoconfigure.endpoint;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockLostException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.metrics.RedlockRegistryMeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * An operator's tools in the {@code redlock} endpoint, over HTTP on real nodes: releasing
 * a hung holder's lease ({@code DELETE /actuator/redlock/{key}}, off unless enabled), the
 * recent events, and the {@code redlock.node.state} gauge.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockEndpointReleaseIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void releaseIsRefusedUnlessEnabledAndTheRefusalIsLoggedAndKept(CapturedOutput output) throws Exception {
		try (ConfigurableApplicationContext context = webApplication()) {
			String base = base(context);
			RedlockRegistry registry = context.getBean(RedlockRegistry.class);
			try (Lease lease = registry.acquire("jobs/stuck", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
				HttpResponse<String> refused = send("DELETE", base + "/jobs/stuck");
				assertThat(refused.statusCode()).isEqualTo(403);
				assertThat(refused.body()).contains("redlock.endpoint.release.enabled=true");
				assertThat(lease.isHeld()).isTrue();
				assertThat(registry.heldLeases()).isEqualTo(1);
			}
			assertThat(send("GET", base).body()).contains("\"kind\":\"RELEASE_REFUSED\"", "\"key\":\"jobs/stuck\"");
		}
		assertThat(output).contains("Refused to release lock 'jobs/stuck' for an unauthenticated caller");
	}

	@Test
	void enabledReleaseFailsTheHoldersWorkAndLetsAnotherInstanceAcquire(CapturedOutput output) throws Exception {
		try (ConfigurableApplicationContext context = webApplication("redlock.endpoint.release.enabled=true");
				RedlockRegistry other = RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false).build()) {
			other.start();
			String base = base(context);
			RedlockRegistry registry = context.getBean(RedlockRegistry.class);
			CountDownLatch running = new CountDownLatch(1);
			CountDownLatch finish = new CountDownLatch(1);
			CompletableFuture<String> work = CompletableFuture.supplyAsync(() -> {
				try {
					return registry.executeLocked("jobs/stuck", Duration.ofSeconds(30), Duration.ofSeconds(5), () -> {
						running.countDown();
						finish.await(30, TimeUnit.SECONDS);
						return "finished";
					});
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
			assertThat(other.tryAcquire("jobs/stuck", Duration.ofSeconds(5))).as("held by the hung work").isEmpty();
			HttpResponse<String> released = send("DELETE", base + "/jobs/stuck");
			assertThat(released.statusCode()).isEqualTo(200);
			assertThat(released.body()).contains("\"released\":1");
			try (Lease taken = other.tryAcquire("jobs/stuck", Duration.ofSeconds(5)).orElseThrow()) {
				assertThat(taken.isHeld()).isTrue();
				HttpResponse<String> elsewhere = send("DELETE", base + "/jobs/stuck");
				assertThat(elsewhere.statusCode()).as("held by another instance only").isEqualTo(404);
			}
			finish.countDown();
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> work.get(20, TimeUnit.SECONDS))
				.havingRootCause()
				.isInstanceOf(LockLostException.class)
				.withMessageContaining(
						"an operator (an unauthenticated caller) released it through the redlock endpoint");
			assertThat(send("DELETE", base + "/never-held").statusCode()).isEqualTo(404);
			assertThat(send("DELETE", base + "/" + "k".repeat(RedlockRegistry.MAX_KEY_LENGTH + 1)).statusCode())
				.isEqualTo(400);
			String nodes = send("GET", base).body();
			assertThat(nodes).contains("\"kind\":\"RELEASE_FORCED\"", "\"kind\":\"LEASE_LOST\"");
			assertThat(nodes.indexOf("RELEASE_FORCED")).as("the newest first").isLessThan(nodes.indexOf("LEASE_LOST"));
		}
		assertThat(output)
			.contains("Lock 'jobs/stuck' released by an unauthenticated caller through the redlock endpoint");
	}

	@Test
	void aNodeGoingDownAndBackIsAnEventAndMovesItsStateGauge() throws Exception {
		try (ConfigurableApplicationContext context = webApplication()) {
			String base = base(context);
			RedlockRegistry registry = context.getBean(RedlockRegistry.class);
			SimpleMeterRegistry meters = new SimpleMeterRegistry();
			new RedlockRegistryMeterBinder(registry).bindTo(meters);
			String node = "redis://127.0.0.1:" + fleet.node(2).port();
			assertThat(meters.get("redlock.node.state").tag("node", node).gauge().value()).isEqualTo(2);
			fleet.node(2).kill();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> meters.get("redlock.node.state").tag("node", node).gauge().value() == 0);
			assertThat(send("GET", base).body()).contains("\"kind\":\"NODE_DOWN\"", "\"node\":\"" + node + "\"");
			fleet.node(2).start();
			// a node is checked when next used: locking goes on meanwhile
			await().atMost(Duration.ofSeconds(60)).until(() -> {
				registry.tryAcquire("traffic", Duration.ofSeconds(1)).ifPresent(Lease::release);
				return meters.get("redlock.node.state").tag("node", node).gauge().value() == 2;
			});
			assertThat(send("GET", base).body()).contains("\"kind\":\"NODE_USABLE\"");
		}
	}

	private static String base(ConfigurableApplicationContext context) {
		return "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort()
				+ "/actuator/redlock";
	}

	private HttpResponse<String> send(String method, String uri) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create(uri))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.timeout(Duration.ofSeconds(20))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static ConfigurableApplicationContext webApplication(String... properties) {
		SpringApplication application = new SpringApplication(RedlockEndpointIntegrationTests.WebApplication.class);
		application.setWebApplicationType(WebApplicationType.SERVLET);
		List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
				"--management.endpoints.web.exposure.include=redlock", "--redlock.restart-guard=false",
				"--redlock.node-timeout=300ms", "--spring.main.banner-mode=off"));
		for (int i = 0; i < 3; i++) {
			arguments.add("--redlock.nodes[" + i + "]=redis://127.0.0.1:" + fleet.node(i).port());
		}
		for (String property : properties) {
			arguments.add("--" + property);
		}
		ConfigurableApplicationContext context = application.run(arguments.toArray(String[]::new));
		RedlockRegistry registry = context.getBean(RedlockRegistry.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> registry.usableNodes() == 3);
		return context;
	}

}
