package io.github.redlock.engine;

import java.time.Duration;
import java.util.Locale;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What each distinct key leaves on a node after its lock is released: its fencing
 * counter, kept for {@code fencingRetention} (issue 13, item 6). The README's memory
 * arithmetic uses the figure this prints; the bounds below only catch a change of layout
 * that multiplies it.
 */
class FencingMemoryIntegrationTests {

	private static final int KEYS = 5_000;

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

	@Test
	void aReleasedKeyLeavesOneCounterOfAboutAHundredBytes() throws Exception {
		RedisNode node = fleet.node(0);
		try (RedlockRegistry registry = TestRegistries.builder(fleet).build().start()) {
			// warm up: connection, scripts, marker
			registry.acquire("warm-up", Duration.ofSeconds(5), Duration.ofSeconds(5)).close();
			long before = usedMemory(node);
			long keysBefore = keyCount(node);
			for (int i = 0; i < KEYS; i++) {
				try (Lease lease = registry.acquire("order:" + (1_000_000 + i), Duration.ofSeconds(5),
						Duration.ofSeconds(5))) {
					assertThat(lease.fencingToken()).isPositive();
				}
			}
			long after = usedMemory(node);
			long left = keyCount(node) - keysBefore;
			long perKey = (after - before) / KEYS;
			Object usage = node.call("MEMORY", "USAGE", "redlock:fence:{order:1000000}");
			long ttl = (Long) node.call("PTTL", "redlock:fence:{order:1000000}");
			System.out.printf(Locale.ROOT,
					"fencing memory: %d keys left %d keys on the node; used_memory grew %d bytes, %d bytes per key;"
							+ " MEMORY USAGE of one counter %s bytes; its TTL %d ms%n",
					KEYS, left, after - before, perKey, usage, ttl);
			// one counter per key, the lock keys gone with their release
			assertThat(left).isEqualTo(KEYS);
			assertThat(ttl).isGreaterThan(Duration.ofHours(23).toMillis());
			assertThat(perKey).isBetween(40L, 400L);
		}
	}

	private static long usedMemory(RedisNode node) {
		String info = (String) node.call("INFO", "memory");
		return Long.parseLong(info.replaceAll("(?s).*\\bused_memory:(\\d+).*", "$1"));
	}

	private static long keyCount(RedisNode node) {
		return (Long) node.call("DBSIZE");
	}

}
