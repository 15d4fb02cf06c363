package io.github.redlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;
import io.github.redlock.NodeFailure;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The quorum rule with nodes down, paused, killed during the work or restarted without
 * their scripts: a majority still locks, a minority fails within its bounds, and a retry
 * never mistakes its own earlier attempt for another owner.
 */
class QuorumUnderNodeFaultsIntegrationTests {

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
	void lockIsAcquiredWhenTwoOfFiveNodesAreDown() throws Exception {
		RedlockRegistry registry = registry();
		fleet.node(0).kill();
		fleet.node(3).kill();
		try (Lease lease = registry.acquire("two-down", Duration.ofSeconds(10), Duration.ofSeconds(2))) {
			assertThat(lease.isHeld()).isTrue();
		}
	}

	@Test
	void acquisitionFailsWithinTheWaitTimeWhenThreeOfFiveNodesAreDown() {
		RedlockRegistry registry = registry();
		fleet.node(0).kill();
		fleet.node(2).kill();
		fleet.node(4).kill();
		Duration waitTime = Duration.ofSeconds(1);
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.acquire("three-down", Duration.ofSeconds(10), waitTime))
			.withMessageContaining("2 of 5 nodes agreed, 3 needed")
			.withMessageContaining(fleet.node(0).uri() + " refused")
			.withMessageContaining(fleet.node(2).uri() + " refused")
			.withMessageContaining(fleet.node(4).uri() + " refused")
			.satisfies((ex) -> {
				assertThat(ex.getAgreed()).isEqualTo(2);
				assertThat(ex.getRequired()).isEqualTo(3);
				assertThat(ex.getFailures()).extracting(NodeFailure::node)
					.containsExactly(fleet.node(0).uri(), fleet.node(2).uri(), fleet.node(4).uri());
			});
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		// the wait time, plus one attempt bounded by the node timeout, plus slack for a
		// busy machine
		assertThat(took).isGreaterThanOrEqualTo(waitTime).isLessThan(waitTime.plus(NODE_TIMEOUT).plusSeconds(2));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> NodeKeys.lockValues(fleet, "three-down").stream().allMatch((v) -> v == null));
	}

	/**
	 * A retry must never reach a node before the withdrawal of its own previous attempt:
	 * it would find that attempt's value there and take it for another owner's lock.
	 * Three nodes refuse, so each attempt is decided before node 3, paused, answers; the
	 * acquisition retries every 10 ms meanwhile. No other owner ever holds the key, so a
	 * node that runs the acquire script's "held" branch (its only {@code PTTL}) found an
	 * attempt of this very acquisition. This failed before the fix: the final failure
	 * listed both live nodes as {@code HELD} ({@code [REFUSED, HELD, REFUSED, HELD,
	 * REFUSED]}), and in another run node 3 reported {@code cmdstat_pttl:calls=2} among
	 * 55 acquire attempts;
	 * {@link #acquisitionFailsWithinTheWaitTimeWhenThreeOfFiveNodesAreDown} failed about
	 * once in six full runs on the same race with no pause ("1 of 5 nodes agreed").
	 */
	@Test
	void retryNeverFindsItsOwnEarlierAttempt() throws Exception {
		RedlockRegistry registry = TestRegistries.builder(fleet)
			.nodeTimeout(Duration.ofSeconds(2))
			.retryDelay(Duration.ofMillis(10))
			.retryJitter(Duration.ZERO)
			.build()
			.start();
		this.registries.add(registry);
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("CONFIG", "RESETSTAT");
		}
		fleet.node(0).kill();
		fleet.node(2).kill();
		fleet.node(4).kill();
		fleet.node(3).pause();
		CompletableFuture<Void> resumed = CompletableFuture.runAsync(() -> {
			try {
				Thread.sleep(300);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			fleet.node(3).resume();
		});
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.acquire("own-attempt", Duration.ofSeconds(10), Duration.ofMillis(800)))
			.satisfies((ex) -> assertThat(ex.getFailures()).extracting(NodeFailure::kind)
				.doesNotContain(NodeFailure.Kind.HELD));
		resumed.get(10, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> NodeKeys.lockValues(fleet, "own-attempt").stream().allMatch((v) -> v == null));
		for (int index : new int[] { 1, 3 }) {
			String stats = (String) fleet.node(index).call("INFO", "commandstats");
			assertThat(stats).as("node %d ran the acquire script's 'held' branch", index)
				.doesNotContain("cmdstat_pttl:");
			assertThat(stats).as("node %d was sent attempts", index).contains("cmdstat_set:");
		}
	}

	/**
	 * The same for a new acquisition of the key right after one that failed, as a caller
	 * that tries again in a loop does. Here another owner holds the key on three nodes;
	 * the other two only ever see this registry's values, so node 3's "held" branch (its
	 * only {@code PTTL}) would mean an attempt found this registry's own earlier value.
	 * This holds because a failure is reported only once every node of the last attempt
	 * answered or timed out, after each node's withdrawal was sent: it passed before the
	 * retry fix too. With the failure reported at the decision instead (a deliberately
	 * broken variant), it failed: {@code cmdstat_pttl:calls=1} on node 3.
	 */
	@Test
	void nextAcquisitionNeverFindsTheFailedOnesValue() throws Exception {
		RedlockRegistry registry = TestRegistries.builder(fleet).nodeTimeout(Duration.ofSeconds(2)).build().start();
		this.registries.add(registry);
		registry.acquire("next-one", Duration.ofSeconds(10), Duration.ofSeconds(10)).release(); // connected
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("CONFIG", "RESETSTAT");
		}
		// another owner holds the key on three nodes, which say so at once: each attempt
		// is decided before node 3, paused, answers
		for (int index : new int[] { 0, 2, 4 }) {
			fleet.node(index).call("SET", "redlock:lock:{next-one}", "another-owner-value-000000000", "PX", "30000");
		}
		fleet.node(3).pause();
		try {
			for (int i = 0; i < 2; i++) {
				assertThat(registry.tryAcquire("next-one", Duration.ofSeconds(10))).isEmpty();
			}
		}
		finally {
			fleet.node(3).resume();
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> fleet.node(1).call("GET", "redlock:lock:{next-one}") == null
					&& fleet.node(3).call("GET", "redlock:lock:{next-one}") == null);
		String stats = (String) fleet.node(3).call("INFO", "commandstats");
		assertThat(stats).as("node 3 ran the acquire script's 'held' branch").doesNotContain("cmdstat_pttl:");
		assertThat(stats).as("node 3 was sent attempts").contains("cmdstat_set:");
	}

	@Test
	void pausedNodeDoesNotStallAnAcquisition() throws Exception {
		RedlockRegistry registry = TestRegistries.builder(fleet)
			.nodeTimeout(Duration.ofSeconds(3))
			.defaultTtl(Duration.ofSeconds(30))
			.build()
			.start();
		this.registries.add(registry);
		fleet.node(1).pause();
		long start = System.nanoTime();
		try (Lease lease = registry.acquire("paused", Duration.ofSeconds(30), Duration.ZERO)) {
			// decided as soon as a quorum agreed: the paused node's 3s timeout is not
			// awaited (a long timeout, so that a busy machine has room)
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
			assertThat(lease.isHeld()).isTrue();
		}
	}

	@Test
	void pausedMajorityFailsTheAttemptAfterTheNodeTimeoutNotLater() {
		RedlockRegistry registry = registry();
		fleet.node(0).pause();
		fleet.node(1).pause();
		fleet.node(2).pause();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.acquire("paused-majority", Duration.ofSeconds(10), Duration.ZERO))
			.withMessageContaining("2 of 5 nodes agreed")
			.withMessageContaining("timed out (after 250ms)");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(NODE_TIMEOUT.plusSeconds(2));
	}

	@Test
	void killingAMajorityDuringTheWorkLosesTheLeaseWithinOneTtl() throws Exception {
		RedlockRegistry registry = registry();
		Duration ttl = Duration.ofSeconds(2);
		AtomicLong killedAt = new AtomicLong();
		AtomicLong lostAt = new AtomicLong();
		AtomicReference<LockLostException> signal = new AtomicReference<>();
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> registry.executeLocked("doomed", ttl, Duration.ZERO, () -> {
				// the nested acquisition is the same lease: listen on it
				try (Lease lease = registry.acquire("doomed", ttl, Duration.ZERO)) {
					CountDownLatch lost = new CountDownLatch(1);
					lease.addListener((gone, cause) -> {
						lostAt.set(System.nanoTime());
						signal.set(cause);
						lost.countDown();
					});
					killedAt.set(System.nanoTime());
					fleet.node(0).kill();
					fleet.node(1).kill();
					fleet.node(2).kill();
					assertThat(lost.await(ttl.toMillis() * 3, TimeUnit.MILLISECONDS)).isTrue();
					assertThat(lease.isHeld()).isFalse();
				}
				return "finished anyway";
			}))
			.withMessageContaining("Lock 'doomed' was lost")
			.withMessageContaining("integrity of data protected by this lock may have been compromised");
		assertThat(signal.get()).isNotNull();
		// lost no later than the validity it had when the nodes died (the expiry check
		// has 1s slack here)
		assertThat(Duration.ofNanos(lostAt.get() - killedAt.get())).isLessThan(ttl.plusSeconds(1));
	}

	@Test
	void nodeScriptsAreReloadedAfterARestart() throws Exception {
		RedlockRegistry registry = registry();
		registry.acquire("reload", Duration.ofSeconds(5), Duration.ZERO).release();
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("SCRIPT", "FLUSH");
		}
		try (Lease lease = registry.acquire("reload", Duration.ofSeconds(5), Duration.ZERO)) {
			assertThat(lease.isHeld()).isTrue();
		}
	}

}
