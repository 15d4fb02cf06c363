package io.github.redlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockInfo;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The owner recorded in a lock value is the caller's thread, also when the lock had to
 * wait (issue 11, item 13). Failed before the fix: a retried attempt recorded the
 * scheduler's thread, {@code redlock-watchdog}.
 */
class OwnerIdentityIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final RedlockRegistry registry = TestRegistries.builder(fleet).build().start();

	@AfterEach
	void close() {
		this.registry.close();
	}

	@Test
	void aLockThatHadToWaitRecordsTheCallersThread() throws Exception {
		Lease first = this.registry.acquire("owned", Duration.ofSeconds(10), Duration.ZERO);
		CompletableFuture<Lease> waiter = new CompletableFuture<>();
		Thread caller = new Thread(() -> {
			try {
				waiter.complete(this.registry.acquire("owned", Duration.ofSeconds(10), Duration.ofSeconds(10)));
			}
			catch (Exception ex) {
				waiter.completeExceptionally(ex);
			}
		}, "order-worker-7");
		caller.start();
		// the caller is waiting now (parked in its registry's line for the key, the
		// holder being of the same registry), which a fixed 200 ms sleep assumed
		await().atMost(Duration.ofSeconds(10))
			.until(() -> caller.getState() == Thread.State.WAITING || caller.getState() == Thread.State.TIMED_WAITING);
		first.release();
		try (Lease second = waiter.get(10, TimeUnit.SECONDS)) {
			LockInfo info = this.registry.inspect("owned");
			assertThat(info.nodes()).filteredOn((node) -> node.owner() != null)
				.isNotEmpty()
				.allSatisfy((node) -> assertThat(node.owner()).endsWith(":order-worker-7"));
			assertThat(second.isHeld()).isTrue();
		}
	}

}
