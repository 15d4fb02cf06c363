package io.github.redlock.autoconfigure.health;

import java.time.Duration;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The readiness group the README documents
 * ({@code management.endpoint.health.group.readiness.include=readinessState,redlock}),
 * with Boot's own health endpoint and probes: a brand-new fleet with the restart guard on
 * cannot lock for {@code max-ttl}, and the pod is not ready until it can.
 */
class ReadinessGroupIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class,
						HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
						ApplicationAvailabilityAutoConfiguration.class, AvailabilityProbesAutoConfiguration.class))
		.withPropertyValues("redlock.nodes[0]=" + fleet.uris().get(0), "redlock.nodes[1]=" + fleet.uris().get(1),
				"redlock.nodes[2]=" + fleet.uris().get(2), "redlock.restart-guard=true", "redlock.max-ttl=4s",
				"redlock.default-ttl=2s", "management.endpoint.health.probes.enabled=true");

	@Test
	void withRedlockInTheGroupANewFleetHoldsReadinessBackUntilItCanLock() {
		this.contextRunner
			.withPropertyValues("management.endpoint.health.group.readiness.include=readinessState,redlock")
			.run((context) -> {
				started(context);
				HealthEndpoint endpoint = context.getBean(HealthEndpoint.class);
				// every node is new: the restart guard keeps them all out for max-ttl
				assertThat(status(endpoint, "readiness")).isEqualTo(Status.DOWN);
				assertThat(status(endpoint, "redlock")).isEqualTo(Status.DOWN);
				assertThat(status(endpoint, "liveness")).isEqualTo(Status.UP);
				await().atMost(Duration.ofSeconds(20))
					.untilAsserted(() -> assertThat(status(endpoint, "readiness")).isEqualTo(Status.UP));
			});
	}

	@Test
	void withoutItReadinessIgnoresLocking() {
		// the nodes are new again (as after the other test) whatever the order
		fleet.node(0).call("FLUSHALL");
		fleet.node(1).call("FLUSHALL");
		fleet.node(2).call("FLUSHALL");
		this.contextRunner.run((context) -> {
			started(context);
			HealthEndpoint endpoint = context.getBean(HealthEndpoint.class);
			assertThat(status(endpoint, "redlock")).isEqualTo(Status.DOWN);
			assertThat(status(endpoint, "readiness")).isEqualTo(Status.UP);
		});
	}

	/**
	 * What a started application publishes (a context runner does not start one).
	 */
	private static void started(ApplicationContext context) {
		AvailabilityChangeEvent.publish(context, LivenessState.CORRECT);
		AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
	}

	private static Status status(HealthEndpoint endpoint, String path) {
		HealthDescriptor health = endpoint.healthForPath(path);
		assertThat(health).as("health at %s", path).isNotNull();
		return health.getStatus();
	}

}
