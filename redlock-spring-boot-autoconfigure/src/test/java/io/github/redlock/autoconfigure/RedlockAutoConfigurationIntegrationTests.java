package io.github.redlock.autoconfigure;

import java.time.Duration;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class RedlockAutoConfigurationIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
			.withPropertyValues(FleetProperties.of(fleet, "redlock.key-prefix=app:"));
	}

	@Test
	void injectedRegistryLocksOnTheNodesAndReleasesHeldLeasesOnShutdown() {
		this.contextRunner().run((context) -> {
			LockRegistry locks = context.getBean(LockRegistry.class);
			try (Lease lease = locks.acquire("order:7", Duration.ofSeconds(10), Duration.ofSeconds(1))) {
				assertThat(lease.fencingToken()).isPositive();
				// a quorum holds it when acquire returns
				assertThat(fleet.fleet().nodes()).filteredOn((node) -> node.call("GET", "app:lock:{order:7}") != null)
					.hasSizeGreaterThanOrEqualTo(2);
			}
			assertThat(fleet.node(0).call("GET", "app:lock:{order:7}")).isNull();
			Lease kept = locks.acquire("held-at-shutdown", Duration.ofSeconds(30), Duration.ofSeconds(1));
			assertThat(kept.isHeld()).isTrue();
		});
		// the context closed while the lease was held: it was released on every node
		for (RedisNode node : fleet.fleet().nodes()) {
			assertThat(node.call("GET", "app:lock:{held-at-shutdown}")).isNull();
		}
	}

}
