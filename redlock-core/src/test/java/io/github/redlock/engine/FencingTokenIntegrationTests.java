package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

class FencingTokenIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	private final List<RedlockRegistry> registries = new ArrayList<>();

	@AfterEach
	void closeRegistries() {
		this.registries.forEach(RedlockRegistry::close);
	}

	private RedlockRegistry registry(Duration retention) {
		RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(false) // fresh nodes: RestartGuardIntegrationTests covers the
									// guard
			.nodeTimeout(Duration.ofMillis(500))
			.fencingRetention(retention)
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	private static long tokenOf(RedlockRegistry registry, String key) throws InterruptedException {
		try (Lease lease = registry.acquire(key, Duration.ofSeconds(10), Duration.ofSeconds(5))) {
			return lease.fencingToken();
		}
	}

	@Test
	void tokensIncreaseAcrossRegistries() throws Exception {
		RedlockRegistry first = registry(Duration.ofHours(1));
		RedlockRegistry second = registry(Duration.ofHours(1));
		long previous = 0;
		for (int i = 0; i < 20; i++) {
			long token = tokenOf((i % 2 == 0) ? first : second, "shared");
			assertThat(token).isGreaterThan(previous);
			previous = token;
		}
	}

	@Test
	void tokensStillIncreaseAfterAMinorityRestartsEmpty() throws Exception {
		RedlockRegistry registry = registry(Duration.ofHours(1));
		long before = tokenOf(registry, "restarts");
		fleet.node(0).restart(false);
		fleet.node(3).restart(false);
		long after = tokenOf(registry, "restarts");
		assertThat(after).isGreaterThan(before);
	}

	@Test
	void laggingCountersAreRaisedSoThatAnyLaterQuorumSeesTheToken() throws Exception {
		RedlockRegistry registry = registry(Duration.ofHours(1));
		long first = tokenOf(registry, "raised");
		// push node 4's counter far ahead (about 11 days of microseconds, beyond any
		// node's clock), as if it alone had seen many acquisitions
		fleet.node(4).call("INCRBY", "redlock:fence:raised", "1000000000000");
		// with nodes 0 and 1 down, the quorum is exactly 2, 3 and 4
		fleet.node(0).kill();
		fleet.node(1).kill();
		long second = tokenOf(registry, "raised");
		assertThat(second).isGreaterThan(first + 1_000_000_000_000L);
		// swap node 4 for nodes 0 and 1, back empty: only the raised counters of nodes 2
		// and 3 can carry the token to the next quorum
		fleet.node(4).kill();
		fleet.node(0).start();
		fleet.node(1).start();
		long third = tokenOf(registry, "raised");
		assertThat(third).isGreaterThan(second);
	}

	@Test
	void tokensStillIncreaseAfterTheCounterStateExpired() throws Exception {
		RedlockRegistry registry = registry(Duration.ofSeconds(1));
		long before = tokenOf(registry, "retention");
		assertThat((Long) fleet.node(0).call("PTTL", "redlock:fence:retention")).isPositive().isLessThanOrEqualTo(1000);
		Thread.sleep(1500); // let the counters expire on every node
		assertThat(fleet.node(0).call("EXISTS", "redlock:fence:retention")).isEqualTo(0L);
		long after = tokenOf(registry, "retention");
		assertThat(after).isGreaterThan(before);
	}

}
