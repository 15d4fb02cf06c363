package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockRegistry;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.NodeStatus;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code redlock.accept-eviction} (docs/configuration.md, docs/production.md) reaches the
 * auto-configured registry: by default a node whose memory policy may evict keys counts
 * toward no quorum, and with the property set to {@code true} it counts. Shown by what
 * the registry does with such a node, not by reading the property back.
 */
class AcceptEvictionPropertyIntegrationTests {

	// one fleet per test: the memory policy set here must not reach other tests
	@RegisterExtension
	final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@BeforeEach
	void letNodeZeroEvict() {
		this.fleet.node(0).call("CONFIG", "SET", "maxmemory", "100mb");
		this.fleet.node(0).call("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
	}

	private ApplicationContextRunner contextRunner(String... properties) {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
			.withPropertyValues(FleetProperties.of(this.fleet, properties));
	}

	@Test
	void byDefaultANodeThatMayEvictLockKeysCountsTowardNoQuorum() {
		contextRunner().run((context) -> {
			List<NodeStatus> status = context.getBean(RedlockRegistry.class).checkNodes();
			assertThat(status.get(0).usable()).isFalse();
			assertThat(status.get(0).problem()).contains("accept-eviction");
			// with one of the others down, the evicting node cannot make up a quorum
			this.fleet.node(1).kill();
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(
					() -> context.getBean(LockRegistry.class).acquire("evicting", Duration.ofSeconds(5), Duration.ZERO))
				.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(LockAcquisitionException.Reason.NO_QUORUM));
		});
	}

	@Test
	void acceptEvictionTrueLetsSuchANodeCount() {
		contextRunner("redlock.accept-eviction=true").run((context) -> {
			assertThat(context.getBean(RedlockRegistry.class).checkNodes()).allMatch(NodeStatus::usable);
			this.fleet.node(1).kill();
			context.getBean(LockRegistry.class).acquire("evicting", Duration.ofSeconds(5), Duration.ZERO).release();
		});
	}

}
