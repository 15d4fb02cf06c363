package io.github.redlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Callers' code never runs on Lettuce's I/O threads (issue 11, items 2 and 11): a thread
 * that receives the nodes' replies and blocks delays every reply, the watchdog's
 * extensions included. Both tests failed before the fix: the continuation and the
 * listener ran on a {@code lettuce-} thread, and the listener's release waited there for
 * a reply that same thread had to read.
 */
class CallbackThreadsIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final RedlockRegistry registry = TestRegistries.builder(fleet).build().start();

	@AfterEach
	void close() {
		this.registry.close();
	}

	@Test
	void asyncAcquisitionCompletesOffTheIoThreads() throws Exception {
		Lease holder = this.registry.acquire("async-thread", Duration.ofSeconds(10), Duration.ZERO);
		// busy first, so that the lease surely arrives with a node's reply
		CompletableFuture<String> thread = this.registry
			.acquireAsync("async-thread", Duration.ofSeconds(10), Duration.ofSeconds(10))
			.thenApply((lease) -> {
				lease.release();
				return Thread.currentThread().getName();
			});
		CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS).execute(holder::release);
		assertThat(thread.get(10, TimeUnit.SECONDS)).doesNotContain("lettuce");
	}

	@Test
	void leaseListenerRunsOffTheIoThreadsAndMayReleaseTheLease() throws Exception {
		Lease lease = this.registry.acquire("listener-thread", Duration.ofSeconds(1), Duration.ZERO, true);
		CompletableFuture<String> listened = new CompletableFuture<>();
		lease.addListener((lost, cause) -> {
			long start = System.nanoTime();
			lost.release(); // blocks until the nodes answer: harmless off the I/O threads
			listened.complete(Thread.currentThread().getName() + " released in "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + "ms");
		});
		// taken away on every node: the watchdog's next extension finds it gone
		for (int i = 0; i < 3; i++) {
			fleet.node(i).call("DEL", "redlock:lock:{listener-thread}");
		}
		String seen = listened.get(10, TimeUnit.SECONDS);
		assertThat(seen).doesNotContain("lettuce");
		assertThat(lease.isHeld()).isFalse();
	}

}
