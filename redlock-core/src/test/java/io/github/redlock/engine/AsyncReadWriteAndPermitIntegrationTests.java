package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;
import io.github.redlock.LockSemaphore;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code acquireReadAsync}, {@code acquireWriteAsync} and
 * {@code LockSemaphore.acquireAsync} against five real nodes: the same exclusion, bound
 * and token order as the blocking calls, no thread blocked, the observer told, and a
 * cancelled future that leaves nothing held.
 */
class AsyncReadWriteAndPermitIntegrationTests {

	private static final Duration TTL = Duration.ofSeconds(10);

	/**
	 * The wait time of acquisitions that nothing contends, generous for a busy machine.
	 */
	private static final Duration SETTLE = Duration.ofSeconds(5);

	private static final long GET_SECONDS = 30;

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	private final List<RedlockRegistry> registries = new ArrayList<>();

	@AfterEach
	void closeRegistries() {
		this.registries.forEach(RedlockRegistry::close);
	}

	private RedlockRegistry registry() {
		return registry(null);
	}

	private RedlockRegistry registry(LockObserver observer) {
		return registry(observer, new RegistryListener() {
		});
	}

	private RedlockRegistry registry(LockObserver observer, RegistryListener listener) {
		RedlockRegistry registry = TestRegistries.builder(fleet)
			.nodeTimeout(Duration.ofMillis(250))
			.observer(observer)
			.listener(listener)
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	private static Lease get(CompletableFuture<Lease> future) throws Exception {
		return future.get(GET_SECONDS, TimeUnit.SECONDS);
	}

	private static LockAcquisitionException failure(CompletableFuture<Lease> future) throws Exception {
		try {
			Lease lease = future.get(GET_SECONDS, TimeUnit.SECONDS);
			lease.release();
			throw new AssertionError("acquired " + lease + " where it should have been refused");
		}
		catch (ExecutionException ex) {
			assertThat(ex.getCause()).isInstanceOf(LockAcquisitionException.class);
			return (LockAcquisitionException) ex.getCause();
		}
	}

	@Test
	void asyncReadersShareAndAnAsyncWriterWaitsForThemThenExcludesEveryone() throws Exception {
		RedlockRegistry one = registry();
		RedlockRegistry two = registry();
		RedlockRegistry writer = registry();
		Lease first = get(one.acquireReadAsync("arw:share", TTL, SETTLE));
		Lease second = get(two.acquireReadAsync("arw:share", TTL, SETTLE));
		assertThat(first.isHeld()).isTrue();
		assertThat(second.isHeld()).isTrue();
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(failure(writer.acquireWriteAsync("arw:share", TTL, Duration.ZERO)).getReason())
			.isEqualTo(LockAcquisitionException.Reason.HELD);
		assertThat(failure(writer.acquireAsync("arw:share", TTL, Duration.ZERO)).getReason())
			.isEqualTo(LockAcquisitionException.Reason.HELD);

		CompletableFuture<Lease> waiting = writer.acquireWriteAsync("arw:share", TTL, Duration.ofSeconds(20));
		first.release();
		Thread.sleep(300); // hold the second reader a while: the writer must still wait
		assertThat(waiting).isNotDone();
		second.release();
		Lease write = get(waiting);
		assertThat(write.fencingToken()).isGreaterThan(second.fencingToken());

		assertThat(failure(one.acquireReadAsync("arw:share", TTL, Duration.ZERO)).getReason())
			.isEqualTo(LockAcquisitionException.Reason.HELD);
		assertThat(failure(two.acquireWriteAsync("arw:share", TTL, Duration.ZERO)).getReason())
			.isEqualTo(LockAcquisitionException.Reason.HELD);
		assertThat(two.tryAcquire("arw:share", TTL)).isEmpty();
		CompletableFuture<Lease> reader = one.acquireReadAsync("arw:share", TTL, Duration.ofSeconds(20));
		write.release();
		Lease read = get(reader);
		assertThat(read.fencingToken()).isGreaterThan(write.fencingToken());
		read.release();
		await().atMost(Duration.ofSeconds(20)).until(() -> lockKeyGone("arw:share"));
	}

	/**
	 * An async acquisition has no owning thread: a thread that holds the write lock waits
	 * for it with its async read like any other reader, rather than joining or
	 * downgrading, and an async write is not refused for the thread's read lock.
	 */
	@Test
	void anAsyncAcquisitionIsNotThreadReentrant() throws Exception {
		RedlockRegistry registry = registry();
		try (Lease write = registry.acquireWrite("arw:thread", TTL, SETTLE)) {
			assertThat(failure(registry.acquireReadAsync("arw:thread", TTL, Duration.ofMillis(200))).getReason())
				.isEqualTo(LockAcquisitionException.Reason.HELD);
			assertThat(failure(registry.acquireWriteAsync("arw:thread", TTL, Duration.ZERO)).getReason())
				.isEqualTo(LockAcquisitionException.Reason.HELD);
		}
		try (Lease read = registry.acquireRead("arw:thread", TTL, SETTLE)) {
			// two async readers beside the thread's own: each a lease of its own
			Lease async = get(registry.acquireReadAsync("arw:thread", TTL, SETTLE));
			assertThat(async.fencingToken()).isGreaterThan(read.fencingToken());
			async.release();
			assertThat(read.isHeld()).isTrue();
			assertThat(failure(registry.acquireWriteAsync("arw:thread", TTL, Duration.ZERO)).getReason())
				.isEqualTo(LockAcquisitionException.Reason.HELD);
		}
	}

	@Test
	void asyncPermitsNeverExceedTheCountAndTheirTokensGrow() throws Exception {
		List<LockSemaphore> semaphores = List.of(registry().semaphore("asem:bound", 2),
				registry().semaphore("asem:bound", 2), registry().semaphore("asem:bound", 2));
		AtomicInteger running = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		List<CompletableFuture<Void>> calls = new ArrayList<>();
		for (int i = 0; i < 9; i++) {
			LockSemaphore semaphore = semaphores.get(i % 3);
			calls.add(semaphore.acquireAsync(TTL, Duration.ofSeconds(40)).thenCompose((permit) -> {
				most.accumulateAndGet(running.incrementAndGet(), Math::max);
				return CompletableFuture
					.runAsync(running::decrementAndGet, CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS))
					.thenCompose((done) -> permit.releaseAsync());
			}));
		}
		CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		System.out.println("async permits: at most " + most.get() + " of 9 holders at once under 2 permits");
		assertThat(most.get()).isBetween(1, 2);

		Lease first = get(semaphores.get(0).acquireAsync(TTL, SETTLE));
		Lease second = get(semaphores.get(1).acquireAsync(TTL, SETTLE));
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(failure(semaphores.get(2).acquireAsync(TTL, Duration.ZERO)).getReason())
			.isEqualTo(LockAcquisitionException.Reason.HELD);
		CompletableFuture<Lease> third = semaphores.get(2).acquireAsync(TTL, Duration.ofSeconds(20));
		first.release();
		Lease later = get(third);
		assertThat(later.fencingToken()).isGreaterThan(second.fencingToken());
		second.release();
		later.release();
		await().atMost(Duration.ofSeconds(20)).until(() -> noLiveEntries("none", "asem:bound"));
	}

	/**
	 * A future cancelled while it waits stops its acquisition: it is never granted once
	 * the holder leaves, nothing is left on the nodes, a writer's mark is withdrawn
	 * (readers get in at once), and the next contender gets the key with no wait. With
	 * the cancel not passed on to the acquisition (broken on purpose), the acquisitions
	 * went on and were granted: "expected: 0 but was: 3".
	 */
	@Test
	void aCancelledWaitLeavesNothingHeld() throws Exception {
		AtomicInteger grants = new AtomicInteger();
		RedlockRegistry registry = registry(null, new RegistryListener() {

			@Override
			public void acquired(String key, Duration took) {
				grants.incrementAndGet();
			}

		});
		RedlockRegistry other = registry();

		Lease read = other.acquireRead("arw:cancel", TTL, SETTLE);
		CompletableFuture<Lease> write = registry.acquireWriteAsync("arw:cancel", TTL, Duration.ofSeconds(30), true);
		// it tried and left its mark, on a quorum of the five nodes: seen, where a fixed
		// 300 ms sleep assumed it; the withdrawal of that mark is what follows
		await().atMost(Duration.ofSeconds(10))
			.until(() -> fleet.fleet()
				.nodes()
				.stream()
				.filter((node) -> node.call("GET", "redlock:writer:arw:cancel") != null)
				.count() >= 3);
		assertThat(write.cancel(false)).isTrue();
		read.release();
		// its mark gone, a reader gets in at once
		await().atMost(Duration.ofSeconds(5))
			.until(() -> tryAcquire(other.acquireReadAsync("arw:cancel", TTL, Duration.ZERO)));

		Lease writer = other.acquireWrite("arw:cancel", TTL, SETTLE);
		CompletableFuture<Lease> reader = registry.acquireReadAsync("arw:cancel", TTL, Duration.ofSeconds(30), true);
		Thread.sleep(300);
		assertThat(reader.cancel(false)).isTrue();
		writer.release();

		LockSemaphore full = other.semaphore("asem:cancel", 1);
		Lease permit = full.acquire(TTL, SETTLE);
		CompletableFuture<Lease> waiter = registry.semaphore("asem:cancel", 1)
			.acquireAsync(TTL, Duration.ofSeconds(30), true);
		Thread.sleep(300);
		assertThat(waiter.cancel(false)).isTrue();
		permit.release();

		Thread.sleep(1000); // a cancelled acquisition that kept trying would have it by
							// now
		assertThat(grants.get()).as("grants to cancelled acquisitions").isZero();
		assertThat(registry.heldLeases()).isZero();
		await().atMost(Duration.ofSeconds(20))
			.until(() -> lockKeyGone("arw:cancel") && noLiveEntries("arw:cancel", "asem:cancel"));
		assertThat(tryAcquire(other.acquireWriteAsync("arw:cancel", TTL, Duration.ZERO))).isTrue();
		assertThat(tryAcquire(full.acquireAsync(TTL, Duration.ZERO))).isTrue();
	}

	/**
	 * A future cancelled before the nodes answered: the lease the nodes grant it
	 * afterwards is released at once. Cancelled at once, many times, so that some grants
	 * surely arrive after the cancel. A future already granted when cancel() is called is
	 * not cancelled (cancel returns false) and its lease is the caller's to release: this
	 * test did not release those, and failed once in six runs under load with one read or
	 * write lease left held by "work still running" (heldLeases() stayed 1 for 20 s),
	 * when its thread was descheduled between the call and the cancel.
	 */
	@Test
	void aFutureCancelledBeforeTheGrantLeavesNoLeaseHeld() throws Exception {
		RedlockRegistry registry = registry();
		LockSemaphore semaphore = registry.semaphore("asem:race", 1);
		List<Function<Integer, CompletableFuture<Lease>>> kinds = List.of(
				(i) -> registry.acquireReadAsync("arw:race", TTL, Duration.ZERO, true),
				(i) -> registry.acquireWriteAsync("arw:race", TTL, Duration.ZERO, true),
				(i) -> semaphore.acquireAsync(TTL, Duration.ZERO, true));
		int grantedFirst = 0;
		for (Function<Integer, CompletableFuture<Lease>> kind : kinds) {
			for (int i = 0; i < 50; i++) {
				CompletableFuture<Lease> future = kind.apply(i);
				if (!future.cancel(false) && !future.isCompletedExceptionally()) {
					future.join().release(); // granted before the cancel: the caller's
					grantedFirst++;
				}
			}
		}
		System.out.println("granted before their cancel (released by the caller): " + grantedFirst + " of 150");
		await().atMost(Duration.ofSeconds(20)).until(() -> registry.heldLeases() == 0);
		await().atMost(Duration.ofSeconds(20))
			.until(() -> lockKeyGone("arw:race") && noLiveEntries("arw:race", "asem:race"));
		// and the keys are free: a write and the only permit are granted at once
		assertThat(tryAcquire(registry.acquireWriteAsync("arw:race", TTL, SETTLE))).isTrue();
		assertThat(tryAcquire(semaphore.acquireAsync(TTL, SETTLE))).isTrue();
	}

	/**
	 * A future cancelled after the nodes granted the lease but before the grant reached
	 * the caller (the registry's callback threads busy meanwhile): the lease is released
	 * as soon as the grant arrives. With that release left out (broken on purpose), the
	 * read lease stayed held: the wait for heldLeases() to reach 0 timed out
	 * (ConditionTimeoutException after 20 seconds).
	 */
	@Test
	void aLeaseGrantedAfterTheCallerCancelledIsReleasedAtOnce() throws Exception {
		RedlockRegistry registry = registry();
		LockSemaphore semaphore = registry.semaphore("asem:late", 1);
		List<Function<Integer, CompletableFuture<Lease>>> kinds = List.of(
				(i) -> registry.acquireReadAsync("arw:late", TTL, SETTLE, true),
				(i) -> registry.acquireWriteAsync("arw:late", TTL, SETTLE, true),
				(i) -> semaphore.acquireAsync(TTL, SETTLE, true));
		int threads = Math.max(2, 2 * Runtime.getRuntime().availableProcessors());
		for (Function<Integer, CompletableFuture<Lease>> kind : kinds) {
			CountDownLatch busy = new CountDownLatch(threads);
			CountDownLatch free = new CountDownLatch(1);
			for (int i = 0; i < threads; i++) {
				registry.callbacks().execute(() -> {
					busy.countDown();
					try {
						free.await(30, TimeUnit.SECONDS);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				});
			}
			assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<Lease> future = kind.apply(0);
			await().atMost(Duration.ofSeconds(20)).until(() -> registry.heldLeases() == 1); // granted
			assertThat(future.cancel(false)).isTrue(); // before the caller heard
			free.countDown();
			await().atMost(Duration.ofSeconds(20)).until(() -> registry.heldLeases() == 0);
		}
		await().atMost(Duration.ofSeconds(20))
			.until(() -> lockKeyGone("arw:late") && noLiveEntries("arw:late", "asem:late"));
	}

	@Test
	void autoExtendedAsyncLeasesOutliveTheirTtl() throws Exception {
		RedlockRegistry registry = registry();
		Duration ttl = Duration.ofMillis(1500);
		Lease read = get(registry.acquireReadAsync("arw:extend", ttl, SETTLE, true));
		Lease permit = get(registry.semaphore("asem:extend", 1).acquireAsync(ttl, SETTLE, true));
		Thread.sleep(4000); // over twice the TTL
		assertThat(read.isHeld()).isTrue();
		assertThat(permit.isHeld()).isTrue();
		read.release();
		Lease write = get(registry.acquireWriteAsync("arw:extend", ttl, SETTLE, true));
		Thread.sleep(4000);
		assertThat(write.isHeld()).isTrue();
		write.release();
		permit.release();
		assertThat(registry.heldLeases()).isZero();
	}

	@Test
	void theFutureCompletesOffTheIoThreads() throws Exception {
		RedlockRegistry registry = registry();
		RedlockRegistry holder = registry();
		Lease write = holder.acquireWrite("arw:thread-name", TTL, SETTLE);
		// busy first, so that the lease surely arrives with a node's reply
		CompletableFuture<String> thread = registry.acquireReadAsync("arw:thread-name", TTL, Duration.ofSeconds(20))
			.thenApply((lease) -> {
				lease.release();
				return Thread.currentThread().getName();
			});
		CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS).execute(write::release);
		assertThat(thread.get(GET_SECONDS, TimeUnit.SECONDS)).doesNotContain("lettuce");
	}

	@Test
	void theObserverHearsAsyncAcquisitionsWithTheirKind() throws Exception {
		RecordingObserver observer = new RecordingObserver();
		RedlockRegistry registry = registry(observer);
		get(registry.acquireReadAsync("arw:observed", TTL, SETTLE)).release();
		get(registry.acquireWriteAsync("arw:observed", TTL, SETTLE)).release();
		get(registry.semaphore("asem:observed", 1).acquireAsync(TTL, SETTLE)).release();
		try (Lease held = registry.acquireWrite("arw:observed", TTL, SETTLE)) {
			failure(registry.acquireReadAsync("arw:observed", TTL, Duration.ZERO));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> observer.events.size() == 14);
		assertThat(observer.events).containsExactly("started ASYNC READ arw:observed", "acquired arw:observed",
				"released arw:observed", "started ASYNC WRITE arw:observed", "acquired arw:observed",
				"released arw:observed", "started ASYNC PERMIT asem:observed", "acquired asem:observed",
				"released asem:observed", "started BLOCKING WRITE arw:observed", "acquired arw:observed",
				"started ASYNC READ arw:observed", "failed arw:observed LockAcquisitionException",
				"released arw:observed");
	}

	private static boolean tryAcquire(CompletableFuture<Lease> future) throws Exception {
		try {
			future.get(GET_SECONDS, TimeUnit.SECONDS).release();
			return true;
		}
		catch (ExecutionException ex) {
			return false;
		}
	}

	private static List<Object> lockKeyOnNodes(String key) {
		List<Object> values = new ArrayList<>();
		for (RedisNode node : fleet.fleet().nodes()) {
			values.add(node.call("GET", "redlock:lock:" + key));
		}
		return values;
	}

	/**
	 * Returns whether no node has a live reader or permit left for the key: entries whose
	 * expiry passed stay in their sorted set until a script meets them, and a release or
	 * withdrawal that a node missed under load leaves one there until its TTL ends,
	 * harmlessly.
	 */
	private static boolean noLiveEntries(String readWriteKey, String semaphoreKey) {
		for (RedisNode node : fleet.fleet().nodes()) {
			List<?> time = (List<?>) node.call("TIME");
			String now = "("
					+ (Long.parseLong(time.get(0).toString()) * 1000 + Long.parseLong(time.get(1).toString()) / 1000);
			for (String set : List.of("redlock:readers:" + readWriteKey, "redlock:permit-expiries:" + semaphoreKey)) {
				if (((Number) node.call("ZCOUNT", set, now, "+inf")).longValue() > 0) {
					return false;
				}
			}
		}
		return true;
	}

	/**
	 * Returns whether no node holds the key's lock key (a writer, or live readers):
	 * released leases leave the nodes beyond a quorum in the background, so this is
	 * awaited.
	 */
	private static boolean lockKeyGone(String key) {
		return lockKeyOnNodes(key).stream().allMatch((value) -> value == null);
	}

	/**
	 * Records what the registry tells it, in order.
	 */
	static final class RecordingObserver implements LockObserver {

		final ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();

		@Override
		public Acquiring acquisitionStarted(String key, Duration ttl, Duration waitTime, Mode mode, boolean reentrant) {
			throw new AssertionError("the registry calls the six-argument form");
		}

		@Override
		public Acquiring acquisitionStarted(String key, Duration ttl, Duration waitTime, Mode mode, boolean reentrant,
				Kind kind) {
			this.events.add("started " + mode + " " + kind + " " + key);
			AtomicBoolean ended = new AtomicBoolean(); // the first outcome counts
			return new Acquiring() {

				@Override
				public Scope openScope() {
					return () -> {
					};
				}

				@Override
				public void acquired(Lease lease) {
					if (!ended.getAndSet(true)) {
						RecordingObserver.this.events.add("acquired " + key);
					}
				}

				@Override
				public void failed(Throwable failure) {
					if (!ended.getAndSet(true)) {
						RecordingObserver.this.events.add("failed " + key + " " + failure.getClass().getSimpleName());
					}
				}

				@Override
				public Holding hold(Lease lease) {
					return new Holding() {

						@Override
						public void released() {
							RecordingObserver.this.events.add("released " + key);
						}

						@Override
						public void lost(LockLostException cause) {
							RecordingObserver.this.events.add("lost " + key);
						}

					};
				}

			};
		}

	}

}
