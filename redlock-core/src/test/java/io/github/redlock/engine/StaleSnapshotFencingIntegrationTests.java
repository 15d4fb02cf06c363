package io.github.redlock.engine;

import java.time.Duration;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.node.QuorumMember;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fencing tokens never go back when nodes come back from an older snapshot (a periodic
 * RDB save, or an AOF fsynced every second, after a crash): the restart guard keeps them
 * out for the maximum TTL, and their counters, kept but old, must not hand out a token
 * below one already given.
 * <p>
 * Before the node floor (the acquire script lifting a counter to the node's restart time
 * plus the guard), {@link #tokensDoNotGoBackWhenAQuorumComesBackFromAnOlderSnapshot}
 * failed: the token after the restart was the snapshot's counter plus one, 49 below the
 * last token handed out (as issue 23 reported on three redis-server 7.0 nodes).
 */
class StaleSnapshotFencingIntegrationTests {

	private static final Duration MAX_TTL = Duration.ofSeconds(2);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	@BeforeEach
	void establishedFleet() {
		// an established fleet: every node carries the marker and has been up longer
		// than the guard, so the first acquisition need not wait
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("SET", "redlock:node", "established:0");
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> fleet.fleet().nodes().stream().allMatch((node) -> uptimeSeconds(node) > 3));
	}

	private RedlockRegistry registry() {
		RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.nodeTimeout(Duration.ofMillis(200))
			.defaultTtl(MAX_TTL)
			.maxTtl(MAX_TTL)
			.restartGuard(true)
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	/**
	 * Waits until every node counts, so that the first acquisitions reach all of them and
	 * each snapshot has the counter.
	 */
	private static RedlockRegistry everyNodeCounting(RedlockRegistry registry) {
		await().atMost(Duration.ofSeconds(30))
			.until(() -> registry.parts().fleet.nodes().stream().allMatch(QuorumMember::isTrusted));
		return registry;
	}

	private static long tokenOf(RedlockRegistry registry, Duration waitTime) throws InterruptedException {
		try (Lease lease = registry.acquire("stale", MAX_TTL, waitTime)) {
			return lease.fencingToken();
		}
	}

	@Test
	void tokensDoNotGoBackWhenAQuorumComesBackFromAnOlderSnapshot() throws Exception {
		RedlockRegistry registry = everyNodeCounting(registry());
		long first = tokenOf(registry, Duration.ofSeconds(5));
		fleet.node(0).snapshot();
		fleet.node(1).snapshot();
		long last = first;
		for (int i = 0; i < 50; i++) {
			long token = tokenOf(registry, Duration.ofSeconds(5));
			assertThat(token).isGreaterThan(last);
			last = token;
		}
		fleet.node(2).kill();
		fleet.node(0).crashToSnapshot();
		fleet.node(1).crashToSnapshot();
		assertThat(fleet.node(0).call("GET", "redlock:fence:{stale}")).isEqualTo(String.valueOf(first));
		// nodes 0 and 1 are the only quorum: the guard keeps them out for the maximum
		// TTL, then they must not go back to the snapshot's counters
		long after = tokenOf(registry, Duration.ofSeconds(30));
		assertThat(after).as("token after a quorum restarted from a snapshot taken at token %d", first)
			.isGreaterThan(last);
		// and a second registry, which never saw the nodes before, agrees
		long fromNewcomer = tokenOf(registry(), Duration.ofSeconds(30));
		assertThat(fromNewcomer).isGreaterThan(after);
	}

	@Test
	void tokensDoNotGoBackWhenAMinorityComesBackFromAnOlderSnapshot() throws Exception {
		RedlockRegistry registry = everyNodeCounting(registry());
		long first = tokenOf(registry, Duration.ofSeconds(5));
		fleet.node(0).snapshot();
		long last = first;
		for (int i = 0; i < 20; i++) {
			last = tokenOf(registry, Duration.ofSeconds(5));
		}
		fleet.node(0).crashToSnapshot();
		// with node 1 down, every quorum has node 0 and its old counter in it, once the
		// guard lets node 0 count again; node 2's counter is current
		fleet.node(1).kill();
		long after = tokenOf(registry, Duration.ofSeconds(30));
		assertThat(after).isGreaterThan(last);
	}

	private static long uptimeSeconds(RedisNode node) {
		String info = (String) node.call("INFO", "server");
		int start = info.indexOf("uptime_in_seconds:") + "uptime_in_seconds:".length();
		return Long.parseLong(info.substring(start, info.indexOf('\r', start)));
	}

}
