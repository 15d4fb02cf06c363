package io.github.redlock.engine;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockAcquisitionException.Reason;
import io.github.redlock.NodeFailure;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * A caller can tell why a lock was not acquired from the exception alone (issue 12, item
 * 1 and 2), and an acquisition that cannot reach a quorum within its wait time stops at
 * once instead of spending it. Before the change the exception had no reason, the
 * no-quorum cases waited the whole wait time, and killed nodes were reported as "recently
 * restarted" when the restart guard was on.
 */
class FailureReasonIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	@Test
	void aBusyLockFailsAsHeldOnceTheWaitTimeIsSpent() throws Exception {
		RedlockRegistry registry = registry(RedlockRegistry.builder().restartGuard(false));
		try (Lease held = registry.acquire("busy", Duration.ofSeconds(10), Duration.ZERO)) {
			LockAcquisitionException failure = fromAnotherThread(
					() -> registry.acquire("busy", Duration.ofSeconds(10), Duration.ofMillis(300)));
			assertThat(failure.getReason()).isEqualTo(Reason.HELD);
			assertThat(failure).hasMessageContaining("held by another owner")
				.hasMessageContaining("wait longer or retry later");
		}
	}

	@Test
	void withAMajorityKilledItFailsFastAsNoQuorumAndTheNodesAreDownNotRestarted() throws Exception {
		// the guard on, as in production: a killed node must read as down
		RedlockRegistry registry = registry(RedlockRegistry.builder()
			.restartGuard(true)
			.defaultTtl(Duration.ofSeconds(1))
			.maxTtl(Duration.ofSeconds(1)));
		awaitEveryNodeUsable(registry);
		registry.acquire("warm", Duration.ofSeconds(1), Duration.ZERO).release();
		fleet.node(0).kill();
		fleet.node(1).kill();
		fleet.node(2).kill();
		long start = System.nanoTime();
		LockAcquisitionException failure = catchThrowableOfType(LockAcquisitionException.class,
				() -> registry.acquire("down", Duration.ofSeconds(1), Duration.ofSeconds(20)));
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(failure.getReason()).isEqualTo(Reason.NO_QUORUM);
		// far below the 20 s wait time, with room for a loaded machine
		assertThat(took).isLessThan(Duration.ofSeconds(10));
		assertThat(failure).hasMessageContaining("not enough usable nodes")
			.hasMessageContaining("stopped trying")
			.hasMessageNotContaining("restarted");
		assertThat(failure.getFailures()).filteredOn((f) -> f.kind() == NodeFailure.Kind.REFUSED).hasSize(3);
	}

	@Test
	void nodesKeptOutByTheGuardPastTheDeadlineFailFastAndTheMessageSaysWhy() {
		fleet.fleet().flushAll(); // every marker new: every node is kept out for the
									// guard time
		RedlockRegistry registry = registry(RedlockRegistry.builder()
			.restartGuard(true)
			.defaultTtl(Duration.ofSeconds(10))
			.maxTtl(Duration.ofSeconds(60)));
		long start = System.nanoTime();
		LockAcquisitionException failure = catchThrowableOfType(LockAcquisitionException.class,
				() -> registry.acquire("guarded", Duration.ofSeconds(10), Duration.ofSeconds(20)));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
		assertThat(failure.getReason()).isEqualTo(Reason.NO_QUORUM);
		assertThat(failure.getFailures()).allSatisfy((f) -> assertThat(f.kind()).isEqualTo(NodeFailure.Kind.RESTARTED));
	}

	/**
	 * Brand-new nodes (issue 41, item 1): the failure says that the restart guard keeps
	 * them out, when locking is possible again, and where the guard is turned off.
	 * Before, it said only "not enough usable nodes" and that they "count again once the
	 * maximum TTL has passed since then", and {@code getRetryAfter()} did not exist.
	 */
	@Test
	void newNodesBehindTheGuardSayWhenLockingIsPossibleAgain() {
		fleet.fleet().flushAll();
		RedlockRegistry registry = registry(RedlockRegistry.builder()
			.restartGuard(true)
			.defaultTtl(Duration.ofSeconds(10))
			.maxTtl(Duration.ofSeconds(60)));
		LockAcquisitionException failure = catchThrowableOfType(LockAcquisitionException.class,
				() -> registry.acquire("new", Duration.ofSeconds(10), Duration.ZERO));
		assertThat(failure.getReason()).isEqualTo(Reason.NO_QUORUM);
		assertThat(failure.getRetryAfter()).hasValueSatisfying(
				(retryAfter) -> assertThat(retryAfter).isGreaterThan(Duration.ZERO).isLessThan(Duration.ofSeconds(70)));
		assertThat(failure).hasMessageContaining("restart guard")
			.hasMessageContaining("locking is possible again in about")
			.hasMessageContaining("redlock.restart-guard=false");
	}

	/**
	 * {@code tryAcquire} tells an outage from contention (issue 41, item 4): empty while
	 * another owner holds the lock, {@code NO_QUORUM} with each node's reason once too
	 * few nodes are usable, for a lock and for a semaphore's permit. Before, both
	 * returned empty with three of five nodes down ("Expecting code to raise a
	 * throwable").
	 */
	@Test
	void tryAcquireIsEmptyWhenHeldAndThrowsWhenTooFewNodesAreUsable() throws Exception {
		RedlockRegistry registry = registry(RedlockRegistry.builder().restartGuard(false));
		RedlockRegistry other = registry(RedlockRegistry.builder().restartGuard(false));
		try (Lease held = other.acquire("busy", Duration.ofSeconds(10), Duration.ZERO)) {
			assertThat(registry.tryAcquire("busy", Duration.ofSeconds(10))).isEmpty();
		}
		fleet.node(0).kill();
		fleet.node(1).kill();
		fleet.node(2).kill();
		LockAcquisitionException failure = catchThrowableOfType(LockAcquisitionException.class,
				() -> registry.tryAcquire("outage", Duration.ofSeconds(10)));
		assertThat(failure.getReason()).isEqualTo(Reason.NO_QUORUM);
		assertThat(failure.getFailures()).filteredOn((f) -> f.kind() == NodeFailure.Kind.REFUSED).hasSize(3);
		LockAcquisitionException permitFailure = catchThrowableOfType(LockAcquisitionException.class,
				() -> registry.semaphore("outage-permits", 2).tryAcquire(Duration.ofSeconds(10)));
		assertThat(permitFailure.getReason()).isEqualTo(Reason.NO_QUORUM);
	}

	@Test
	void nodesDownGiveNoRetryAfter() throws Exception {
		RedlockRegistry registry = registry(RedlockRegistry.builder().restartGuard(false));
		registry.acquire("warm", Duration.ofSeconds(1), Duration.ZERO).release();
		fleet.node(0).kill();
		fleet.node(1).kill();
		fleet.node(2).kill();
		LockAcquisitionException failure = catchThrowableOfType(LockAcquisitionException.class,
				() -> registry.acquire("down", Duration.ofSeconds(1), Duration.ofMillis(300)));
		assertThat(failure.getReason()).isEqualTo(Reason.NO_QUORUM);
		assertThat(failure.getRetryAfter()).isEmpty();
	}

	@Test
	void aGuardThatEndsBeforeTheDeadlineIsWaitedOut() throws Exception {
		fleet.fleet().flushAll();
		RedlockRegistry registry = registry(RedlockRegistry.builder()
			.restartGuard(true)
			.defaultTtl(Duration.ofSeconds(1))
			.maxTtl(Duration.ofSeconds(1)));
		try (Lease lease = registry.acquire("soon", Duration.ofSeconds(1), Duration.ofSeconds(20))) {
			assertThat(lease.isHeld()).isTrue();
		}
	}

	@Test
	void aQuorumThatAgreesOnlyAfterTheTtlIsValidityExhausted() {
		// a pause of this process while the nodes answer, simulated by a clock that jumps
		// by a TTL whenever a script is sent
		AtomicLong offset = new AtomicLong();
		RedlockRegistry registry = registry(RedlockRegistry.builder()
			.restartGuard(false)
			.tune((options) -> options.clock = () -> System.nanoTime() + offset.get()));
		for (int i = 0; i < registry.parts().fleet.size(); i++) {
			registry.parts().fleet.node(i).afterTrustCheck(() -> offset.addAndGet(Duration.ofSeconds(3).toNanos()));
		}
		LockAcquisitionException failure = catchThrowableOfType(LockAcquisitionException.class,
				() -> registry.acquire("paused", Duration.ofSeconds(2), Duration.ofSeconds(1)));
		assertThat(failure.getReason()).isEqualTo(Reason.VALIDITY_EXHAUSTED);
		assertThat(failure).hasMessageContaining("validity exhausted").hasMessageContaining("longer ttl");
	}

	@Test
	void aLeaseLostForWantOfNodesNamesTheDownNodesAndCallsNoHealthyNodeTimedOut() throws Exception {
		// failed before the fix: the two healthy nodes, not yet heard from when the three
		// refusals decided the extension, were reported "timed out"
		RedlockRegistry registry = registry(
				RedlockRegistry.builder().restartGuard(false).defaultTtl(Duration.ofSeconds(1)));
		Lease lease = registry.acquire("lost", Duration.ofSeconds(1), Duration.ZERO, true);
		java.util.concurrent.CompletableFuture<String> lost = new java.util.concurrent.CompletableFuture<>();
		lease.addListener((ignored, cause) -> lost.complete(cause.getMessage()));
		fleet.node(0).kill();
		fleet.node(1).kill();
		fleet.node(2).kill();
		String message = lost.get(10, java.util.concurrent.TimeUnit.SECONDS);
		assertThat(message).contains(fleet.node(0).uri() + " refused", fleet.node(1).uri() + " refused",
				fleet.node(2).uri() + " refused");
		assertThat(message).doesNotContain(fleet.node(3).uri() + " timed out")
			.doesNotContain(fleet.node(4).uri() + " timed out");
		lease.release();
	}

	private RedlockRegistry registry(RedlockRegistry.Builder builder) {
		RedlockRegistry registry = builder.nodes(fleet.uris()).build().start();
		this.registries.add(registry);
		return registry;
	}

	private static void awaitEveryNodeUsable(RedlockRegistry registry) {
		await().atMost(Duration.ofSeconds(15)).until(() -> registry.checkNodes().stream().allMatch(NodeStatus::usable));
	}

	private static LockAcquisitionException fromAnotherThread(ThrowingRunnable action) throws Exception {
		LockAcquisitionException[] caught = new LockAcquisitionException[1];
		Thread thread = new Thread(() -> caught[0] = catchThrowableOfType(LockAcquisitionException.class, action::run));
		thread.start();
		thread.join();
		assertThat(caught[0]).as("a LockAcquisitionException").isNotNull();
		return caught[0];
	}

	@FunctionalInterface
	interface ThrowingRunnable {

		void run() throws Exception;

	}

}
