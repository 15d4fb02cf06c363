package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;
import io.github.redlock.LockSemaphore;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code acquireReadAsync}, {@code acquireWriteAsync} and
 * {@code LockSemaphore.acquireAsync} against five real nodes: the same exclusion, bound
 * and token order as the blocking calls, no thread blocked, and the observer told
 * ({@link CancelledAsyncAcquisitionIntegrationTests} covers cancelled futures).
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

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

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

	private static List<Object> lockKeyOnNodes(String key) {
		List<Object> values = new ArrayList<>();
		for (RedisNode node : fleet.fleet().nodes()) {
			values.add(node.call("GET", "redlock:lock:{" + key + "}"));
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
			for (String set : List.of("redlock:readers:{" + readWriteKey + "}",
					"redlock:permit-expiries:{" + semaphoreKey + "}")) {
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
