package io.github.redlock.autoconfigure.health;

import java.time.Duration;
import java.util.Map;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockRegistry;
import io.github.redlock.NodeFailure;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.health.RedlockHealthIndicator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The restart guard through the Spring wiring, on by default as an application gets it
 * (issue 11): every other Spring test turns it off for its freshly started nodes. A
 * restarted node is kept out, and says so in health and in the exception.
 */
class RestartGuardThroughSpringIntegrationTests {

	@RegisterExtension
	final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@Test
	void aRestartedNodeIsKeptOutAndSaysSoInHealthAndInTheException() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class,
					RedlockHealthContributorAutoConfiguration.class))
			.withPropertyValues("redlock.nodes[0]=" + this.fleet.uris().get(0),
					"redlock.nodes[1]=" + this.fleet.uris().get(1), "redlock.nodes[2]=" + this.fleet.uris().get(2),
					"redlock.node-timeout=100ms", "redlock.default-ttl=3s", "redlock.max-ttl=3s")
			.run((context) -> {
				LockRegistry locks = context.getBean(LockRegistry.class);
				RedlockHealthIndicator health = context.getBean(RedlockHealthIndicator.class);
				// new nodes sit out for max-ttl first: the guard is on
				assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
				await().atMost(Duration.ofSeconds(15)).until(() -> health.health().getStatus().equals(Status.UP));
				locks.acquire("guarded", Duration.ofSeconds(3), Duration.ZERO).release();
				this.fleet.node(0).restart(false);
				this.fleet.node(1).kill();
				String restarted = this.fleet.uris().get(0);
				await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
					Health down = health.health();
					assertThat(down.getStatus()).isEqualTo(Status.DOWN);
					assertThat(node(down, restarted)).containsEntry("status", "DOWN")
						.hasEntrySatisfying("problem",
								(problem) -> assertThat((String) problem).contains("recently restarted"));
				});
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> locks.acquire("guarded", Duration.ofSeconds(3), Duration.ZERO))
					.withMessageContaining(restarted + " recently restarted")
					.satisfies((ex) -> assertThat(ex.getFailures()).extracting(NodeFailure::kind)
						.contains(NodeFailure.Kind.RESTARTED));
			});
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> node(Health health, String uri) {
		return ((Map<String, Map<String, Object>>) health.getDetails().get("nodes")).get(uri);
	}

}
