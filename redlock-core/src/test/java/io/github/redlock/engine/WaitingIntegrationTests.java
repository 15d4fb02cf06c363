package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.kinds.AcquisitionAwait;
import io.github.redlock.engine.lease.RedlockLease;
import io.github.redlock.engine.waiting.ReleaseHints;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * How waiters wait (issue 15, items 1 and 2): one line per key in a registry, woken when
 * a lease of the registry ends, and release hints from the nodes when another process
 * releases. Every waiter here polls only every 30 seconds, so a waiter that gets the lock
 * within a few seconds of a release was woken; before the change each of these waited for
 * its poll (the release tests failed on the {@code atMost}, the order test got its
 * waiters in the order their polls fell, the fairness test saw the releasing thread take
 * the lock back nearly every time; each of those, and the hint test, failed again with
 * the wake-ups turned off on purpose). Two registries stand for two processes: they share
 * nothing but the nodes.
 */
class WaitingIntegrationTests {

	private static final Duration SLOW_POLL = Duration.ofSeconds(30);

	private static final Duration TTL = Duration.ofSeconds(10);

	private static final Duration WAIT = Duration.ofSeconds(60);

	/**
	 * A woken waiter's one attempt must reach a quorum, or it waits for its 30 s poll:
	 * the default 100 ms is a tight bound on a loaded 2-core machine. In a full run with
	 * three test JVMs, aSubscriptionRefusedAtFirstIsAskedForAgainWhileTheWaiterWaits once
	 * got no lock within 20 s of the release, at a time when another test's nodes were
	 * missing a 250 ms timeout; a timed-out attempt is the likely cause (not proven).
	 */
	private static final Duration NODE_TIMEOUT = Duration.ofMillis(500);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final List<RedlockRegistry> registries = new ArrayList<>();

	@AfterEach
	void close() {
		this.registries.forEach(RedlockRegistry::close);
	}

	private RedlockRegistry registry(boolean releaseHints) {
		RedlockRegistry registry = TestRegistries.builder(fleet)
			.nodeTimeout(NODE_TIMEOUT)
			.retryDelay(SLOW_POLL)
			.retryJitter(Duration.ZERO)
			.releaseHints(releaseHints)
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	@Test
	void aWaiterOfTheSameRegistryGetsTheLockRightAfterTheRelease() throws Exception {
		RedlockRegistry registry = registry(false);
		Lease held = registry.acquire("line-release", TTL, Duration.ZERO);
		CompletableFuture<Lease> waiter = registry.acquireAsync("line-release", TTL, WAIT);
		awaitWaiters(registry, 1);
		held.release();
		Lease next = waiter.get(20, TimeUnit.SECONDS);
		assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		next.release();
	}

	@Test
	void aWaiterOfAnotherRegistryGetsTheLockRightAfterTheReleaseThroughAHint() throws Exception {
		// with the hint listener made to ignore messages, this failed on the get's
		// timeout
		RedlockRegistry holder = registry(true);
		RedlockRegistry waiting = registry(true);
		// held for longer than the waiter waits below: only a wake-up can get it there
		Lease held = holder.acquire("hint-release", Duration.ofSeconds(50), Duration.ZERO);
		CompletableFuture<Lease> waiter = waiting.acquireAsync("hint-release", TTL, WAIT);
		// subscribed on every node once its first attempt failed
		await().atMost(Duration.ofSeconds(20)).until(() -> subscribers("redlock:lock:{hint-release}") == 3);
		held.release();
		Lease next = waiter.get(20, TimeUnit.SECONDS);
		assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		next.release();
		// subscribed only while waiting: unsubscribed a second after
		await().atMost(Duration.ofSeconds(20)).until(() -> subscribers("redlock:lock:{hint-release}") == 0);
		assertThat(waiting.parts().hints.subscriptions()).isZero();
	}

	@Test
	void withoutHintsAWaiterPollsNoLaterThanTheHoldersRemainingTtl() throws Exception {
		RedlockRegistry holder = registry(true);
		RedlockRegistry waiting = registry(false);
		// held and never released, as by a process that died: only its expiry frees it
		holder.acquire("ttl-bound", Duration.ofSeconds(2), Duration.ZERO);
		long start = System.nanoTime();
		Lease next = waiting.acquireAsync("ttl-bound", TTL, WAIT).get(25, TimeUnit.SECONDS);
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(SLOW_POLL.toMillis());
		next.release();
	}

	@Test
	void waitersOfOneRegistryGetTheLockInTheOrderTheyAskedEachWithANewToken() throws Exception {
		RedlockRegistry registry = registry(false);
		Lease held = registry.acquire("line-order", TTL, Duration.ZERO);
		List<Integer> order = new CopyOnWriteArrayList<>();
		List<Long> tokens = new CopyOnWriteArrayList<>();
		List<CompletableFuture<?>> done = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			int index = i;
			if (i % 2 == 0) {
				// a blocking waiter on a thread of its own
				CompletableFuture<Void> blocking = new CompletableFuture<>();
				Thread thread = new Thread(() -> {
					try (Lease lease = registry.acquire("line-order", TTL, WAIT)) {
						order.add(index);
						tokens.add(lease.fencingToken());
						blocking.complete(null);
					}
					catch (Throwable ex) {
						blocking.completeExceptionally(ex);
					}
				});
				thread.start();
				done.add(blocking);
			}
			else {
				// an async waiter: no thread waits for it
				done.add(registry.acquireAsync("line-order", TTL, WAIT).thenAccept((lease) -> {
					order.add(index);
					tokens.add(lease.fencingToken());
					lease.release();
				}));
			}
			awaitWaiters(registry, i + 1);
		}
		held.release();
		CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		assertThat(order).containsExactly(0, 1, 2, 3, 4, 5);
		assertThat(tokens).isSorted()
			.doesNotHaveDuplicates()
			.allSatisfy((token) -> assertThat(token).isGreaterThan(held.fencingToken()));
	}

	@Test
	void theReleasingThreadGoesToTheEndOfTheLine() throws Exception {
		RedlockRegistry registry = registry(false);
		int threads = 4;
		int each = 50;
		List<Integer> order = new CopyOnWriteArrayList<>();
		AtomicLong lastToken = new AtomicLong();
		AtomicInteger backwards = new AtomicInteger();
		CyclicBarrier start = new CyclicBarrier(threads);
		List<Thread> started = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int index = t;
			Thread thread = new Thread(() -> {
				try {
					start.await(30, TimeUnit.SECONDS);
					for (int i = 0; i < each; i++) {
						try (Lease lease = registry.acquire("line-fair", TTL, WAIT)) {
							if (lease.fencingToken() <= lastToken.getAndSet(lease.fencingToken())) {
								backwards.incrementAndGet();
							}
							order.add(index);
						}
					}
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			thread.start();
			started.add(thread);
		}
		for (Thread thread : started) {
			thread.join(TimeUnit.SECONDS.toMillis(60));
		}
		assertThat(order).hasSize(threads * each);
		assertThat(backwards).hasValue(0);
		// when the first thread has its last lock, taking turns has given each of the
		// others nearly as many; polling gave the releasing thread nearly all of them (a
		// thread started late, on a loaded machine, is why the bound is low)
		int[] counts = new int[threads];
		for (int holder : order) {
			if (++counts[holder] == each) {
				break;
			}
		}
		for (int count : counts) {
			assertThat(count).as("acquisitions per thread when the first had all its own").isGreaterThanOrEqualTo(5);
		}
	}

	@Test
	void aWaiterThatSpendsItsWaitTimeInLineFailsAndTheLineMovesOn() throws Exception {
		RedlockRegistry registry = registry(false);
		Lease held = registry.acquire("line-timeout", TTL, Duration.ZERO);
		CompletableFuture<Lease> first = registry.acquireAsync("line-timeout", TTL, WAIT);
		awaitWaiters(registry, 1);
		CompletableFuture<Lease> impatient = registry.acquireAsync("line-timeout", TTL, Duration.ofMillis(300));
		CompletableFuture<Lease> cancelled = registry.acquireAsync("line-timeout", TTL, WAIT);
		CompletableFuture<Lease> last = registry.acquireAsync("line-timeout", TTL, WAIT);
		awaitWaiters(registry, 4);
		LockAcquisitionException failure = catchThrowableOfType(LockAcquisitionException.class,
				() -> AcquisitionAwait.await(impatient.thenApply(RedlockLease.class::cast), "line-timeout",
						registry.decisionBound(Duration.ofMillis(300)).toNanos()));
		assertThat(failure.getReason()).isEqualTo(LockAcquisitionException.Reason.HELD);
		assertThat(failure).hasMessageContaining("behind 1 earlier acquisition of this registry");
		cancelled.cancel(false);
		awaitWaiters(registry, 2);
		held.release();
		first.get(20, TimeUnit.SECONDS).release();
		last.get(20, TimeUnit.SECONDS).release();
		awaitWaiters(registry, 0);
	}

	@Test
	void aLeaseReleasedWithAMinimumHoldWakesTheLineWhenThatHoldEnds() throws Exception {
		// failed before the fix: the lease's expiry check stayed scheduled for its 10s
		// validity, so the waiter got the lock only then (found by ShedLock's test, whose
		// unlock is a releaseAfter)
		RedlockRegistry registry = registry(false);
		Lease held = registry.acquire("line-linger", TTL, Duration.ZERO);
		CompletableFuture<Lease> waiter = registry.acquireAsync("line-linger", TTL, WAIT);
		awaitWaiters(registry, 1);
		held.releaseAfter(Duration.ofMillis(300));
		waiter.get(5, TimeUnit.SECONDS).release();
	}

	@Test
	void aTryAcquireNeverWaitsInLine() throws Exception {
		RedlockRegistry registry = registry(false);
		Lease held = registry.acquire("line-try", TTL, Duration.ZERO);
		CompletableFuture<Lease> waiter = registry.acquireAsync("line-try", TTL, WAIT);
		awaitWaiters(registry, 1);
		// from another thread: the holder's own would join its lease
		assertThat(CompletableFuture.supplyAsync(() -> registry.tryAcquire("line-try", TTL)).get(20, TimeUnit.SECONDS))
			.isEmpty();
		assertThat(registry.parts().waiting().waiters()).isEqualTo(1);
		held.release();
		waiter.get(20, TimeUnit.SECONDS).release();
	}

	@Test
	void aUserWithoutPubSubStillReleasesAndItsWaitersPoll() throws Exception {
		// before the change, a release script that published with redis.call would have
		// failed for this user and left every lock to expire
		LogCapture log = LogCapture.of(java.util.logging.Level.INFO, ReleaseHints.class);
		try {
			RedlockRegistry holder = registryAs("nopubsub", Duration.ofMillis(200), "~*", "+@all", "-@pubsub");
			RedlockRegistry waiting = registryAs("nopubsub", Duration.ofMillis(200), "~*", "+@all", "-@pubsub");
			Lease held = holder.acquire("acl-hints", Duration.ofSeconds(50), Duration.ZERO);
			CompletableFuture<Lease> waiter = waiting.acquireAsync("acl-hints", TTL, WAIT);
			awaitRefusedOnEveryNode(log);
			held.release();
			// release() returns once a quorum deleted the key, maybe without node 0 yet;
			// the 50 s lock goes from node 0 only by the release (or the waiter's value,
			// which needs the release too)
			await().atMost(Duration.ofSeconds(10))
				.until(() -> waiter.isDone()
						|| Long.valueOf(0).equals(fleet.node(0).call("EXISTS", "redlock:lock:{acl-hints}")));
			waiter.get(20, TimeUnit.SECONDS).release();
		}
		finally {
			log.close();
		}
	}

	@Test
	void theLeastPrivilegeWithPubSubOnTheLockChannelsGetsHints() throws Exception {
		// the README's rules: resetchannels first, since Redis 6.2 and KeyDB 6.3 default
		// to
		// acl-pubsub-default allchannels and refuse a channel pattern after it ("ERR
		// Error in
		// ACL SETUSER modifier '&redlock:lock:*': Adding a pattern after the * pattern
		// ...")
		String[] rules = { "~redlock:*", "resetchannels", "&redlock:lock:*", "+eval", "+evalsha", "+get", "+set",
				"+incr", "+pexpire", "+pttl", "+del", "+time", "+info", "+publish", "+subscribe", "+unsubscribe" };
		RedlockRegistry holder = registryAs("least-hints", SLOW_POLL, rules);
		RedlockRegistry waiting = registryAs("least-hints", SLOW_POLL, rules);
		Lease held = holder.acquire("acl-least-hints", Duration.ofSeconds(50), Duration.ZERO);
		CompletableFuture<Lease> waiter = waiting.acquireAsync("acl-least-hints", TTL, WAIT);
		// once failed in a full run, never alone: say what stood where if it fails again
		await().atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(subscribers("redlock:lock:{acl-least-hints}"))
				.as(() -> "subscribers; waiter done: " + waiter.isDone() + ", keys the waiting registry subscribed to: "
						+ waiting.parts().hints.subscriptions() + ", line: "
						+ waiting.parts().waiting().describe("acl-least-hints"))
				.isEqualTo(3));
		held.release();
		waiter.get(20, TimeUnit.SECONDS).release();
	}

	@Test
	void aSubscriptionRefusedAtFirstIsAskedForAgainWhileTheWaiterWaits() throws Exception {
		// before the change a refused subscription marked the key subscribed all the
		// same:
		// it was not asked for again while the waiter waited (here, with the channels
		// allowed a moment later, the subscribers stayed at 0), and its waiter polled
		// no channel at first on every server: Redis 6.2 and KeyDB 6.3 give a new user
		// every
		// channel (acl-pubsub-default allchannels), so without resetchannels nothing was
		// refused there and awaitRefusedOnEveryNode timed out
		String[] rules = { "~redlock:*", "resetchannels", "+@all" };
		LogCapture log = LogCapture.of(java.util.logging.Level.INFO, ReleaseHints.class);
		try {
			RedlockRegistry holder = registryAs("late-hints", SLOW_POLL, rules);
			RedlockRegistry waiting = registryAs("late-hints", SLOW_POLL, rules);
			Lease held = holder.acquire("late-hints", Duration.ofSeconds(50), Duration.ZERO);
			CompletableFuture<Lease> waiter = waiting.acquireAsync("late-hints", TTL, WAIT);
			awaitRefusedOnEveryNode(log);
			for (int i = 0; i < 3; i++) {
				fleet.node(i).call("ACL", "SETUSER", "late-hints", "&redlock:lock:*");
			}
			await().atMost(Duration.ofSeconds(20)).until(() -> subscribers("redlock:lock:{late-hints}") == 3);
			assertThat(waiter).isNotDone();
			held.release();
			waiter.get(20, TimeUnit.SECONDS).release();
		}
		finally {
			log.close();
		}
	}

	private RedlockRegistry registryAs(String user, Duration retryDelay, String... rules) {
		RedlockRegistry registry = TestRegistries
			.builder(NodeStats.aclUser(fleet.fleet().nodes(), user, List.of(rules)))
			.nodeTimeout(NODE_TIMEOUT)
			.retryDelay(retryDelay)
			.retryJitter(Duration.ZERO)
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	private static void awaitWaiters(RedlockRegistry registry, int count) {
		await().atMost(Duration.ofSeconds(20)).until(() -> registry.parts().waiting().waiters() == count);
	}

	/**
	 * Waits until each of the 3 nodes was said to give no release hints.
	 */
	private static void awaitRefusedOnEveryNode(LogCapture log) {
		await().atMost(Duration.ofSeconds(20))
			.until(() -> log.lines().stream().filter((line) -> line.contains("gives no release hints")).count() == 3);
	}

	private static long subscribers(String channel) {
		return NodeStats.subscribers(fleet.fleet().nodes(), channel);
	}

}
