package io.github.redlock.engine;

import java.time.Duration;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.node.Script;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Failed attempts and releases leave no key on any node, even when a slow node's late
 * acquire or the acquire script's reload after {@code NOSCRIPT} could overtake them.
 */
class NoKeyLeftBehindIntegrationTests {

	private static final Duration NODE_TIMEOUT = Duration.ofMillis(250);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	private RedlockRegistry registry() {
		RedlockRegistry registry = TestRegistries.builder(fleet)
			.nodeTimeout(NODE_TIMEOUT)
			.defaultTtl(Duration.ofSeconds(10))
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	@Test
	void failedAttemptLeavesNoKeyOnAnyNode() throws Exception {
		// another owner holds the key on three nodes: our attempt wins only the other two
		for (int i = 0; i < 3; i++) {
			fleet.node(i).call("SET", "redlock:lock:{partial}", "someone-else", "PX", "60000");
		}
		RedlockRegistry registry = registry();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.acquire("partial", Duration.ofSeconds(10), Duration.ofMillis(200)));
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(NodeKeys.lockValues(fleet, "partial")).containsExactly("someone-else",
					"someone-else", "someone-else", null, null));
	}

	@Test
	void releaseIsNotOvertakenByTheAcquireScriptsReloadAfterNoscript() throws Exception {
		RedlockRegistry registry = registry();
		for (int i = 0; i < 3; i++) {
			fleet.node(i).call("SET", "redlock:lock:{reload-race}", "someone-else", "PX", "60000");
		}
		// nodes 3 and 4 know the release script but not the acquire script, as after a
		// restart on which only a release ran: the acquire goes EVALSHA, NOSCRIPT, EVAL
		for (int i = 3; i < 5; i++) {
			fleet.node(i).call("SCRIPT", "FLUSH");
			fleet.node(i).call("SCRIPT", "LOAD", Script.RELEASE.text());
			fleet.node(i).slow(Duration.ofMillis(100)); // they answer after the attempt
														// is decided
		}
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.acquire("reload-race", Duration.ofSeconds(30), Duration.ZERO));
		fleet.node(3).unslow();
		fleet.node(4).unslow();
		// well before the 30s ttl: the release must have followed the reloaded acquire
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(NodeKeys.lockValues(fleet, "reload-race")).containsExactly("someone-else",
					"someone-else", "someone-else", null, null));
	}

	@Test
	void releaseOfAHeldLeaseIsNotOvertakenByALateAcquireOnASlowNode() throws Exception {
		RedlockRegistry registry = registry();
		for (int i = 3; i < 5; i++) {
			fleet.node(i).call("SCRIPT", "FLUSH");
			fleet.node(i).call("SCRIPT", "LOAD", Script.RELEASE.text());
			fleet.node(i).slow(Duration.ofMillis(100));
		}
		// nodes 0 to 2 make the quorum; the release follows at once
		registry.acquire("late", Duration.ofSeconds(30), Duration.ZERO).release();
		fleet.node(3).unslow();
		fleet.node(4).unslow();
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(NodeKeys.lockValues(fleet, "late")).containsOnlyNulls());
	}

	@Test
	void failedAttemptAgainstASlowNodeLeavesNoKeyBehind() throws Exception {
		// connected and checked first: the attempt must meet the start of a stall, when
		// node 4 answers only after our timeout
		RedlockRegistry registry = registry();
		for (int i = 0; i < 2; i++) {
			fleet.node(i).call("SET", "redlock:lock:{slow}", "someone-else", "PX", "60000");
		}
		fleet.node(4).slow(Duration.ofMillis(400)); // answers after our timeout
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.acquire("slow", Duration.ofSeconds(10), Duration.ZERO));
		fleet.node(4).unslow();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(NodeKeys.lockValues(fleet, "slow")).containsExactly("someone-else",
					"someone-else", null, null, null));
	}

}
