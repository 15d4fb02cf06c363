package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.waiting.WaitingLine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Release hints for read-write locks (issue 28: they keep every promise the mutex keeps):
 * a reader or writer of one registry is woken when the lock it waits for is released in
 * another. Read-write locks stand in the exclusive lock's lines and their releases
 * publish on the lock key's channel, so this held before the semaphores got hints of
 * their own; these tests record it. The waiter polls only every 30 seconds and the
 * holder's lease lives 50 seconds, so a waiter that gets its lock within 15 seconds of
 * the release was woken. With the publish taken out of the write release and the read
 * release on purpose, both failed with "java.util.concurrent.TimeoutException" on the
 * waiter's 15 s get.
 */
class ReadWriteHintsIntegrationTests {

	private static final Duration SLOW_POLL = Duration.ofSeconds(30);

	private static final Duration HELD_TTL = Duration.ofSeconds(50);

	private static final Duration TTL = Duration.ofSeconds(10);

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static final long WOKEN_WITHIN_SECONDS = 15;

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final List<RedlockRegistry> registries = new ArrayList<>();

	@AfterEach
	void close() {
		this.registries.forEach(RedlockRegistry::close);
	}

	@Test
	void aReaderOfAnotherRegistryIsWokenWhenTheWriterReleases() throws Exception {
		RedlockRegistry holder = registry();
		RedlockRegistry waiting = registry();
		Lease write = holder.acquireWrite("rw-hint-read", HELD_TTL, Duration.ofSeconds(5));
		CompletableFuture<Lease> reader = waiting.acquireReadAsync("rw-hint-read", TTL, WAIT);
		await().atMost(Duration.ofSeconds(20)).until(() -> subscribers("redlock:lock:{rw-hint-read}") == 3);
		write.release();
		Lease read = reader.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS);
		assertThat(read.fencingToken()).isGreaterThan(write.fencingToken());
		read.release();
	}

	@Test
	void aWriterOfAnotherRegistryIsWokenWhenTheLastReaderReleases() throws Exception {
		RedlockRegistry holder = registry();
		RedlockRegistry waiting = registry();
		Lease first = holder.acquireRead("rw-hint-write", HELD_TTL, Duration.ofSeconds(5));
		Lease second = CompletableFuture
			.supplyAsync(() -> holder.acquireRead("rw-hint-write", HELD_TTL, Duration.ofSeconds(5)))
			.get(20, TimeUnit.SECONDS);
		CompletableFuture<Lease> writer = waiting.acquireWriteAsync("rw-hint-write", TTL, WAIT);
		await().atMost(Duration.ofSeconds(20)).until(() -> subscribers("redlock:lock:{rw-hint-write}") == 3);
		first.release();
		second.release();
		Lease write = writer.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS);
		assertThat(write.fencingToken()).isGreaterThan(Math.max(first.fencingToken(), second.fencingToken()));
		write.release();
	}

	/**
	 * An exclusive lock's release publishes only when a waiter marked its value
	 * ({@link Script#QUEUE_WAITER}): a reader or writer waiting for it must mark it too.
	 * Before they queued themselves, this failed with a TimeoutException on the reader's
	 * 15 s get (its poll 30 s away): the release published nothing.
	 */
	@Test
	void aReaderOfAnotherRegistryIsWokenWhenAnExclusiveHolderReleases() throws Exception {
		RedlockRegistry holder = registry();
		RedlockRegistry waiting = registry();
		Lease exclusive = holder.acquire("rw-hint-x-read", HELD_TTL, Duration.ofSeconds(5));
		CompletableFuture<Lease> reader = waiting.acquireReadAsync("rw-hint-x-read", TTL, WAIT);
		await().atMost(Duration.ofSeconds(20)).until(() -> subscribers("redlock:lock:{rw-hint-x-read}") == 3);
		exclusive.release();
		Lease read = reader.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS);
		assertThat(read.fencingToken()).isGreaterThan(exclusive.fencingToken());
		read.release();
	}

	/**
	 * As {@link #aReaderOfAnotherRegistryIsWokenWhenAnExclusiveHolderReleases}, for a
	 * writer; before the fix it failed the same way.
	 */
	@Test
	void aWriterOfAnotherRegistryIsWokenWhenAnExclusiveHolderReleases() throws Exception {
		RedlockRegistry holder = registry();
		RedlockRegistry waiting = registry();
		Lease exclusive = holder.acquire("rw-hint-x-write", HELD_TTL, Duration.ofSeconds(5));
		CompletableFuture<Lease> writer = waiting.acquireWriteAsync("rw-hint-x-write", TTL, WAIT);
		await().atMost(Duration.ofSeconds(20)).until(() -> subscribers("redlock:lock:{rw-hint-x-write}") == 3);
		exclusive.release();
		Lease write = writer.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS);
		assertThat(write.fencingToken()).isGreaterThan(exclusive.fencingToken());
		write.release();
	}

	/**
	 * A reader waiting for an exclusive holder stands in the nodes' queue of waiting
	 * processes like an exclusive waiter, so the exclusive waiters of other processes
	 * that queued after it cannot take every turn before it: here C (exclusive), B
	 * (reader) and D (exclusive) queue in that order behind A, and get the lock in that
	 * order. Before, the reader was never queued: C's release named D, and this failed
	 * with a TimeoutException on the reader's 15 s get (its poll 30 s away).
	 */
	@Test
	void aReaderTakesItsTurnBeforeExclusiveWaitersThatQueuedAfterIt() throws Exception {
		String key = "rw-turns";
		RedlockRegistry a = registry();
		RedlockRegistry c = registry();
		RedlockRegistry b = registry();
		RedlockRegistry d = registry();
		Lease heldByA = a.acquire(key, HELD_TTL, Duration.ofSeconds(5));
		CompletableFuture<Lease> forC = c.acquireAsync(key, HELD_TTL, WAIT);
		awaitSleeping(c, key, 3);
		CompletableFuture<Lease> forB = b.acquireReadAsync(key, TTL, WAIT);
		awaitSleeping(b, key, 6);
		CompletableFuture<Lease> forD = d.acquireAsync(key, HELD_TTL, WAIT);
		awaitSleeping(d, key, 9);
		heldByA.release();
		Lease heldByC = forC.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS);
		heldByC.release();
		Lease read = forB.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS);
		assertThat(forD).as("D, queued after the reader").isNotDone();
		read.release();
		forD.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS).release();
	}

	/**
	 * Waits until the registry's waiter for {@code key} sleeps, asking for release hints,
	 * and {@code subscribers} registries are subscribed on the nodes in all.
	 */
	private static void awaitSleeping(RedlockRegistry registry, String key, int subscribers) {
		await().atMost(Duration.ofSeconds(20))
			.until(() -> WaitingLine.of(registry.parts().waiting(), key).waitersAre(WaitingLine.Phase.SLEEPING)
					&& WaitingLine.of(registry.parts().waiting(), key).hinted()
					&& subscribers("redlock:lock:{" + key + "}") == subscribers);
	}

	private RedlockRegistry registry() {
		RedlockRegistry registry = TestRegistries.builder(fleet)
			.nodeTimeout(Duration.ofMillis(500))
			.retryDelay(SLOW_POLL)
			.retryJitter(Duration.ZERO)
			.releaseHints(true)
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	private static long subscribers(String channel) {
		return NodeStats.subscribers(fleet.fleet().nodes(), channel);
	}

}
