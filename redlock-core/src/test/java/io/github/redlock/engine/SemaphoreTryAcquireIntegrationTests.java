package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.redlock.Lease;
import io.github.redlock.LockSemaphore;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockSemaphore#tryAcquire} against three real nodes: it grants a permit whenever
 * a slot is free on a quorum, whichever slot its first attempt asks for, and is empty
 * only when none is. Each scenario runs several times, since the first slot asked for is
 * random.
 */
class SemaphoreTryAcquireIntegrationTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	private static final int ROUNDS = 10;

	/** The value other holders' permits carry: written straight into the nodes. */
	private static final String OTHER = "someone-else-holder-x:h:1:t";

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final List<RedlockRegistry> registries = new ArrayList<>();

	@AfterEach
	void closeRegistries() {
		this.registries.forEach(RedlockRegistry::close);
	}

	private RedlockRegistry registry() {
		RedlockRegistry registry = TestRegistries.builder(fleet).nodeTimeout(Duration.ofMillis(250)).build().start();
		this.registries.add(registry);
		return registry;
	}

	/**
	 * Two registries take turns on a fresh semaphore of three permits: the first three
	 * turns get one each, the next two get none; a permit that the other registry
	 * releases goes to the next turn.
	 * <p>
	 * Failed before the fix, in the first round: a turn asked for one random slot, and
	 * when the other registry held it, the free slot the refusals named was not tried:
	 * "[round 0, turn 2 (1 permits available before it) got a permit] expected: true but
	 * was: false".
	 */
	@Test
	void twoRegistriesTakingTurnsGetEveryFreePermit() {
		RedlockRegistry first = registry();
		RedlockRegistry second = registry();
		for (int round = 0; round < ROUNDS; round++) {
			String key = "sem:turns-" + round;
			List<LockSemaphore> turns = List.of(first.semaphore(key, 3), second.semaphore(key, 3));
			List<Lease> held = new ArrayList<>();
			for (int turn = 0; turn < 5; turn++) {
				LockSemaphore semaphore = turns.get(turn % 2);
				int available = semaphore.availablePermits();
				assertThat(available).as("round %d, permits available before turn %d", round, turn)
					.isEqualTo(Math.max(0, 3 - turn));
				Optional<Lease> granted = semaphore.tryAcquire(TTL);
				assertThat(granted.isPresent())
					.as("round %d, turn %d (%d permits available before it) got a permit", round, turn, available)
					.isEqualTo(available > 0);
				granted.ifPresent(held::add);
			}
			// the first registry's first permit goes; the second registry asks next
			held.remove(0).release();
			Optional<Lease> after = turns.get(1).tryAcquire(TTL);
			assertThat(after).as("round %d, a permit right after another registry released one", round).isPresent();
			held.add(after.get());
			assertThat(turns.get(0).tryAcquire(TTL)).as("round %d, a fourth permit", round).isEmpty();
			held.forEach(Lease::release);
		}
	}

	/**
	 * Other holders' permits spread over the nodes: slot 0 on nodes 0 and 2, slot 1 on
	 * nodes 0 and 1. Only slot 2 is free on a quorum (on every node), and a refusal of
	 * slot 0 or 1 names the other one on some node: tryAcquire must still find slot 2,
	 * and be empty once that is taken (slots 0 and 1 are free on one node each).
	 * <p>
	 * Failed before the fix, in the first round in which the random first slot was 0 or 1
	 * (round 0 in the run): the one attempt was refused and tryAcquire came back empty,
	 * "[round 0 got the permit free on every node] Expecting value to be true but was
	 * false".
	 */
	@Test
	void aSlotFreeOnAQuorumIsFoundWhenRefusalsNameOthers() {
		String key = "sem:spread-free";
		String holders = "redlock:permits:{" + key + "}";
		String expiries = "redlock:permit-expiries:{" + key + "}";
		String expiry = String.valueOf(System.currentTimeMillis() + 120_000);
		int[][] taken = { { 0, 0 }, { 0, 2 }, { 1, 0 }, { 1, 1 } };
		for (int[] slotOnNode : taken) {
			RedisNode node = fleet.node(slotOnNode[1]);
			node.call("HSET", holders, String.valueOf(slotOnNode[0]), OTHER);
			node.call("ZADD", expiries, expiry, String.valueOf(slotOnNode[0]));
		}
		try {
			RedlockRegistry registry = registry();
			for (int round = 0; round < ROUNDS; round++) {
				LockSemaphore semaphore = registry.semaphore(key, 3);
				assertThat(semaphore.availablePermits()).as("round %d, permits available", round).isEqualTo(1);
				Optional<Lease> granted = semaphore.tryAcquire(TTL);
				assertThat(granted.isPresent()).as("round %d got the permit free on every node", round).isTrue();
				assertThat(semaphore.tryAcquire(TTL)).as("round %d, a second permit", round).isEmpty();
				granted.get().release();
			}
		}
		finally {
			for (RedisNode node : fleet.fleet().nodes()) {
				node.call("DEL", holders, expiries);
			}
		}
	}

}
