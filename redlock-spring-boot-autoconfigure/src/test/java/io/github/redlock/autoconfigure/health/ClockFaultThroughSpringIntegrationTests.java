package io.github.redlock.autoconfigure.health;

import java.time.Duration;
import java.util.Map;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.endpoint.RedlockEndpointAutoConfiguration;
import io.github.redlock.autoconfigure.metrics.RedlockMetricsAutoConfiguration;
import io.github.redlock.embedded.FakeClocks;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.endpoint.RedlockEndpoint;
import io.github.redlock.endpoint.RedlockEndpoint.NodeDescriptor;
import io.github.redlock.health.RedlockHealthIndicator;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node whose clock jumps, through the Spring wiring (issue 37, item 2): it is kept out
 * of every quorum, and health, the {@code redlock} endpoint and the
 * {@code redlock.nodes.clock.faults} gauge say so until its clock has been steady for the
 * maximum TTL. Real clock faults: libfaketime moves a running redis-server's wall clock.
 * The gauge's test came first: there was no such gauge, and nothing but health and the
 * endpoint, which ask every node, told of a clock fault.
 */
class ClockFaultThroughSpringIntegrationTests {

	private static RedisFleet fleet;

	@BeforeAll
	static void startFleet() {
		FakeClocks.assumeAvailable();
		fleet = RedisFleet.startWithFakeClocks(3);
	}

	@AfterAll
	static void stopFleet() {
		if (fleet != null) {
			fleet.close();
		}
	}

	@Test
	void aNodeWhoseClockJumpedIsShownInHealthTheEndpointAndAGauge() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
					RedlockAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class,
					RedlockEndpointAutoConfiguration.class, RedlockMetricsAutoConfiguration.class))
			.withPropertyValues("redlock.nodes[0]=" + fleet.uris().get(0), "redlock.nodes[1]=" + fleet.uris().get(1),
					"redlock.nodes[2]=" + fleet.uris().get(2), "redlock.node-timeout=200ms", "redlock.default-ttl=2s",
					"redlock.max-ttl=2s", "management.endpoints.web.exposure.include=redlock")
			.run((context) -> {
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				RedlockHealthIndicator health = context.getBean(RedlockHealthIndicator.class);
				RedlockEndpoint endpoint = context.getBean(RedlockEndpoint.class);
				// the guard is on, as an application has it: new nodes sit out max-ttl
				await().atMost(Duration.ofSeconds(15)).until(() -> gauge(meters, "redlock.nodes.usable") == 3);
				assertThat(gauge(meters, "redlock.nodes.clock.faults")).isZero();
				RedisNode jumped = fleet.node(0);
				String uri = fleet.uris().get(0);
				jumped.clockOffset(Duration.ofSeconds(10));
				try {
					await().atMost(Duration.ofSeconds(10))
						.until(() -> gauge(meters, "redlock.nodes.clock.faults") == 1);
					// both ask every node: on a loaded machine a check may time out, and
					// then says so rather than why the node is out (the node stays out,
					// its
					// clock 10 s off the median)
					await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
						Health shown = health.health();
						assertThat(shown.getStatus()).as("two of three still lock").isEqualTo(Status.UP);
						assertThat(node(shown, uri)).containsEntry("status", "DOWN")
							.hasEntrySatisfying("problem",
									(problem) -> assertThat((String) problem).startsWith("clock unsteady (its clock "));
					});
					await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
						NodeDescriptor described = endpoint.nodes().nodes().get(0);
						assertThat(described.state()).isEqualTo("DOWN");
						assertThat(described.reason()).startsWith("clock unsteady (its clock ");
					});
					assertThat(meters.get("redlock.nodes.clock.faults").gauge().getId().getDescription())
						.contains("clock jumped");
				}
				finally {
					jumped.clockOffset(Duration.ZERO);
				}
				// set right, a jump too: out until steady for max-ttl, then back
				await().atMost(Duration.ofSeconds(30))
					.until(() -> gauge(meters, "redlock.nodes.clock.faults") == 0
							&& gauge(meters, "redlock.nodes.usable") == 3);
			});
	}

	private static double gauge(MeterRegistry meters, String name) {
		return meters.get(name).gauge().value();
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> node(Health health, String uri) {
		return ((Map<String, Map<String, Object>>) health.getDetails().get("nodes")).get(uri);
	}

}
