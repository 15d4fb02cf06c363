package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.waiting.WaitingLine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A process's entry in the nodes' queue of waiting processes
 * ({@link Script#QUEUE_WAITER}) lives only while that process waits: a line that gets the
 * lock without a release naming it (the holder died or its lease expired, a read or write
 * lock was released) takes its entry out, and an entry never outlives a few of its line's
 * polls, however long its waiter may wait ({@code Lock.lock()} waits a year). Each
 * registry here stands for a process; a "dead holder" is a value set directly on the
 * nodes with a ttl, as a crashed process leaves it.
 * <p>
 * Before the fix, {@link #aLineThatGotTheLockWithoutBeingNamedLeavesTheQueue} failed with
 * the line's entry still on every node after 10 s, the queue key's PTTL 31535987066 ms
 * (the 365 days of {@code Lock.lock()}),
 * {@link #aQueueEntryLivesMinutesNotTheWaitOfLockLock} with a PTTL of 31535999895 ms
 * while queued (bound: an hour), and
 * {@link #aReleaseAfterAnUnnamedAcquisitionNamesTheProcessReallyWaiting} with a
 * TimeoutException on its 5 s get: the release named the stale entry, and the process
 * really waiting (retry delay 20 s) was left to its poll.
 */
class QueueEntriesIntegrationTests {

	private static final String KEY = "entries";

	private static final String LOCK = "redlock:lock:{" + KEY + "}";

	private static final String QUEUE = "redlock:waiters:{" + KEY + "}";

	private static final Duration TTL = Duration.ofSeconds(60);

	private static final Duration WAIT = Duration.ofSeconds(120);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final List<RedlockRegistry> registries = new ArrayList<>();

	@AfterEach
	void close() {
		this.registries.forEach(RedlockRegistry::close);
		for (int i = 0; i < 3; i++) {
			fleet.node(i).call("FLUSHALL");
		}
	}

	@Test
	void aLineThatGotTheLockWithoutBeingNamedLeavesTheQueue() throws Exception {
		RedlockRegistry a = registry(Duration.ofMillis(200));
		holdAsADeadProcess(3000);
		Lock lock = a.obtain(KEY);
		lock.lock(); // refused, queued, then taken once the dead holder's value expired
		lock.unlock();
		String id = a.parts().waiting().lineId();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			for (int i = 0; i < 3; i++) {
				assertThat(String.valueOf(fleet.node(i).call("GET", QUEUE)))
					.as("node %d's queue (PTTL %s ms)", i, fleet.node(i).call("PTTL", QUEUE))
					.doesNotContain(id);
			}
		});
	}

	@Test
	void aQueueEntryLivesMinutesNotTheWaitOfLockLock() throws Exception {
		RedlockRegistry a = registry(Duration.ofMillis(200));
		RedlockRegistry b = registry(Duration.ofMillis(200));
		Lease held = a.acquire(KEY, TTL, WAIT);
		Lock lock = b.obtain(KEY);
		CompletableFuture<Void> forB = CompletableFuture.runAsync(() -> {
			lock.lock();
			lock.unlock();
		});
		String id = b.parts().waiting().lineId();
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			for (int i = 0; i < 3; i++) {
				assertThat(String.valueOf(fleet.node(i).call("GET", QUEUE))).as("node %d's queue", i).contains(id);
			}
		});
		for (int i = 0; i < 3; i++) {
			assertThat((Long) fleet.node(i).call("PTTL", QUEUE)).as("node %d's queue's PTTL", i)
				.isBetween(1L, TimeUnit.HOURS.toMillis(1));
		}
		held.release();
		forB.get(20, TimeUnit.SECONDS);
	}

	@Test
	void aReleaseAfterAnUnnamedAcquisitionNamesTheProcessReallyWaiting() throws Exception {
		RedlockRegistry a = registry(Duration.ofMillis(200));
		RedlockRegistry b = registry(Duration.ofSeconds(20));
		RedlockRegistry c = registry(Duration.ofMillis(200));
		holdAsADeadProcess(3000);
		Lock lock = a.obtain(KEY);
		lock.lock();
		lock.unlock();
		// A's process ends: its subscription goes, its entry (before the fix) stays
		a.close();
		Lease held = c.acquire(KEY, TTL, WAIT);
		CompletableFuture<Lease> forB = b.acquireAsync(KEY, TTL, WAIT);
		String id = b.parts().waiting().lineId();
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			for (int i = 0; i < 3; i++) {
				assertThat(String.valueOf(fleet.node(i).call("GET", QUEUE))).as("node %d's queue", i).contains(id);
				assertThat(NodeStats.subscribers(fleet.node(i), LOCK)).as("node %d's subscribers", i).isEqualTo(1);
			}
			assertThat(WaitingLine.of(b.parts().waiting(), KEY))
				.returns(List.of(WaitingLine.Phase.SLEEPING), WaitingLine::waiters)
				.returns(true, WaitingLine::hinted);
		});
		held.release();
		// its poll is 20 s away: only a release hint naming it gets it the lock sooner
		forB.get(5, TimeUnit.SECONDS).release();
	}

	/**
	 * Sets the lock on every node as a process that crashed left it: its value, expiring
	 * in {@code ttlMillis}.
	 */
	private static void holdAsADeadProcess(long ttlMillis) {
		for (int i = 0; i < 3; i++) {
			fleet.node(i).call("SET", LOCK, "secret-of-the-dead-00000000:host:1:main", "PX", String.valueOf(ttlMillis));
		}
	}

	private RedlockRegistry registry(Duration retryDelay) {
		RedlockRegistry registry = TestRegistries.builder(fleet)
			.releaseHints(true)
			.retryDelay(retryDelay)
			.retryJitter(Duration.ZERO)
			.nodeTimeout(Duration.ofMillis(500))
			.connectTimeout(Duration.ofSeconds(10))
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

}
