package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.redlock.Lease;
import io.github.redlock.LockSemaphore;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A cancelled {@code acquireReadAsync}, {@code acquireWriteAsync} or
 * {@code LockSemaphore.acquireAsync} future leaves nothing held, against five real nodes:
 * cancelled while it waits, before the nodes answered, or after they granted the lease
 * but before the grant reached the caller.
 */
class CancelledAsyncAcquisitionIntegrationTests {

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
				.filter((node) -> node.call("GET", "redlock:writer:{arw:cancel}") != null)
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
				registry.parts().callbacks().execute(() -> {
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

}
