package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
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
		await().atMost(Duration.ofSeconds(20)).until(() -> subscribers("redlock:lock:rw-hint-read") == 3);
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
		await().atMost(Duration.ofSeconds(20)).until(() -> subscribers("redlock:lock:rw-hint-write") == 3);
		first.release();
		second.release();
		Lease write = writer.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS);
		assertThat(write.fencingToken()).isGreaterThan(Math.max(first.fencingToken(), second.fencingToken()));
		write.release();
	}

	private RedlockRegistry registry() {
		RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(false)
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
