package io.github.redlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A release (or a failed attempt's withdrawal) whose command times out before the
 * client's I/O thread writes it, as on a loaded machine where that thread is not
 * scheduled for longer than the node timeout: the deletion must still reach the nodes.
 * Lettuce never writes a command that completed (timed out) before its turn, so before
 * the fix the lock stayed on every node until its TTL: in a test where four readers came
 * and went, a writer waited 10 s (the readers' TTL) for entries whose releases had been
 * "sent". Here the one I/O thread of the registry's Lettuce resources is held busy for a
 * second while the lease is released, with a node timeout of 100 ms.
 * <p>
 * Before the fix both tests failed at the first assertion: "the lock is gone from every
 * node once the I/O thread runs again", expected 0 but was 1 within 10 seconds (the key
 * kept its 30 s TTL on the node whose release timed out unwritten).
 */
class StarvedClientReleaseIntegrationTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	/** One I/O thread, so that holding it busy starves every node connection. */
	private ClientResources resources;

	private RedlockRegistry registry;

	private RedisClient starver;

	private StatefulRedisConnection<String, String> starving;

	@BeforeEach
	void start() {
		this.resources = DefaultClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(2).build();
		this.registry = TestRegistries.builder(fleet)
			.clientResources(this.resources)
			.nodeTimeout(Duration.ofMillis(100))
			.build()
			.start();
		this.starver = RedisClient.create(this.resources, RedisURI.create(fleet.uris().get(0)));
		this.starving = this.starver.connect();
	}

	@AfterEach
	void stop() {
		this.starving.close();
		this.starver.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		this.registry.close();
		this.resources.shutdown(0, 2, TimeUnit.SECONDS);
	}

	@Test
	void aReleaseThatTimesOutBeforeItIsWrittenStillDeletesTheLock() throws Exception {
		Lease lease = this.registry.acquire("starved-release", TTL, Duration.ofSeconds(10));
		assertThat(locks("redlock:lock:{starved-release}")).isEqualTo(3);
		whileTheIoThreadIsBusy(lease::release);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(locks("redlock:lock:{starved-release}"))
				.as("the lock is gone from every node once the I/O thread runs again")
				.isZero());
	}

	@Test
	void aReadLockReleaseThatTimesOutBeforeItIsWrittenStillDeletesTheReader() throws Exception {
		Lease lease = this.registry.acquireRead("starved-read", TTL, Duration.ofSeconds(10));
		assertThat(locks("redlock:lock:{starved-read}")).isEqualTo(3);
		whileTheIoThreadIsBusy(lease::release);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(locks("redlock:lock:{starved-read}"))
				.as("the lock is gone from every node once the I/O thread runs again")
				.isZero());
		assertThat(locks("redlock:readers:{starved-read}")).isZero();
		// a writer gets in at once, not after the reader's TTL
		try (Lease write = this.registry.acquireWrite("starved-read", TTL, Duration.ofSeconds(5))) {
			assertThat(write.isHeld()).isTrue();
		}
	}

	/**
	 * Runs {@code action} while the one I/O thread sleeps for a second in a reply
	 * callback (Lettuce completes replies on it), ten node timeouts.
	 */
	private void whileTheIoThreadIsBusy(Runnable action) throws Exception {
		CountDownLatch busy = new CountDownLatch(1);
		CompletableFuture<Void> held = this.starving.async().ping().toCompletableFuture().thenAccept((pong) -> {
			busy.countDown();
			try {
				Thread.sleep(1000); // holding the I/O thread, as a starved machine would
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
		action.run();
		held.get(10, TimeUnit.SECONDS);
	}

	private static long locks(String key) {
		long count = 0;
		for (int i = 0; i < 3; i++) {
			if (((Long) fleet.node(i).call("EXISTS", key)) > 0) {
				count++;
			}
		}
		return count;
	}

}
