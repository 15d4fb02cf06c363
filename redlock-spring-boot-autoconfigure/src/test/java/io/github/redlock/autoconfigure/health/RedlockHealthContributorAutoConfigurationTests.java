package io.github.redlock.autoconfigure.health;

import java.time.Duration;
import java.util.Map;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.health.RedlockHealthIndicator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code redlock} health component, against real nodes.
 */
class RedlockHealthContributorAutoConfigurationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class))
		.withPropertyValues(FleetProperties.of(fleet, "redlock.node-timeout=300ms"));

	@Test
	void upWithEveryNodeAndItsLatency() {
		this.contextRunner.run((context) -> {
			Health health = context.getBean(RedlockHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("quorum", 2)
				.containsEntry("usable", "3 of 3")
				.containsEntry("tolerates", "1 more node failure(s)");
			assertThat(nodes(health)).containsOnlyKeys(fleet.uris());
			assertThat(nodes(health).values()).allSatisfy((node) -> assertThat(node).containsEntry("status", "UP")
				.hasEntrySatisfying("latency", (latency) -> assertThat((String) latency).matches("\\d+\\.\\d\\dms")));
		});
	}

	@Test
	void upWhileAQuorumIsLeftAndDownWhenItIsNot() {
		this.contextRunner.run((context) -> {
			HealthIndicator indicator = context.getBean(RedlockHealthIndicator.class);
			fleet.node(0).kill();
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				Health health = indicator.health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("usable", "2 of 3")
					.containsEntry("tolerates", "0 more node failure(s)");
				assertThat(nodes(health).get(fleet.uris().get(0))).containsEntry("status", "DOWN")
					.containsKey("problem");
			});
			fleet.node(1).pause();
			Health down = indicator.health();
			assertThat(down.getStatus()).isEqualTo(Status.DOWN);
			assertThat(down.getDetails()).containsEntry("usable", "1 of 3");
			assertThat((String) down.getDetails().get("tolerates")).startsWith("nothing");
			assertThat(nodes(down).get(fleet.uris().get(1))).containsEntry("status", "DOWN")
				.hasEntrySatisfying("problem", (problem) -> assertThat((String) problem).contains("timed out"));
			fleet.node(1).resume();
			fleet.node(0).start();
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(indicator.health().getStatus()).isEqualTo(Status.UP));
		});
	}

	@Test
	void aPasswordNeverAppearsInTheDetails() {
		this.contextRunner
			.withPropertyValues("redlock.nodes[3]=redis://app:s3cret-pw@127.0.0.1:1",
					"redlock.nodes[4]=redis://:0ther-pw@127.0.0.1:2")
			.run((context) -> {
				Health health = context.getBean(RedlockHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("usable", "3 of 5");
				// no userinfo is shown: a lone one is a password
				assertThat(nodes(health)).containsKeys("redis://127.0.0.1:1", "redis://127.0.0.1:2");
				assertThat(health.toString()).doesNotContain("s3cret-pw").doesNotContain("0ther-pw");
			});
	}

	@Test
	void canBeDisabled() {
		this.contextRunner.withPropertyValues("management.health.redlock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedlockHealthIndicator.class));
	}

	@Test
	void backsOffWithoutBootHealth() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedlockHealthIndicator.class));
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwn() {
		this.contextRunner.withUserConfiguration(OwnIndicator.class).run((context) -> {
			assertThat(context).hasSingleBean(HealthIndicator.class);
			assertThat(context.getBean("redlockHealthIndicator")).isNotInstanceOf(RedlockHealthIndicator.class);
		});
	}

	@Test
	void absentWhenRedlockIsDisabled() {
		this.contextRunner.withPropertyValues("redlock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedlockHealthIndicator.class));
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Map<String, Object>> nodes(Health health) {
		return (Map<String, Map<String, Object>>) health.getDetails().get("nodes");
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnIndicator {

		@Bean
		HealthIndicator redlockHealthIndicator() {
			return () -> Health.up().build();
		}

	}

}
