package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two extensions of one lease at once (a caller's {@code extend(5s)} racing the
 * watchdog's 30s): the validity the client believes must be one a quorum of nodes grants
 * (issue 11, item 9). This test failed before the fix: the 30s extension was held up
 * before its last node, the 5s one went to every node and was decided, then the 30s one
 * reached its last node and was decided last, so the client believed 30s while two of
 * three nodes held 5s.
 */
class ConcurrentExtensionIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final RedlockRegistry registry = TestRegistries.builder(fleet).build().start();

	@AfterEach
	void close() {
		this.registry.parts().fleet.node(2).afterTrustCheck(null);
		this.registry.close();
	}

	@Test
	void theValidityBelievedAfterRacingExtensionsIsOneAQuorumGrants() throws Exception {
		Lease lease = this.registry.acquire("raced", Duration.ofSeconds(10), Duration.ZERO);
		CountDownLatch release = new CountDownLatch(1);
		Thread longer = new Thread(() -> lease.extend(Duration.ofSeconds(30)), "extend-30s");
		this.registry.parts().fleet.node(2).afterTrustCheck(() -> {
			if (Thread.currentThread() == longer) {
				try {
					// held up before its last node until the other extension is issued
					release.await(5, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		});
		longer.start();
		// the race this test is about: the 30s extension applied on nodes 0 and 1 and
		// held
		// up before node 2 (a fixed 200 ms sleep assumed it; now it is seen)
		await().atMost(Duration.ofSeconds(5))
			.until(() -> (Long) fleet.node(0).call("PTTL", "redlock:lock:{raced}") > 10_000
					&& (Long) fleet.node(1).call("PTTL", "redlock:lock:{raced}") > 10_000);
		assertThat((Long) fleet.node(2).call("PTTL", "redlock:lock:{raced}")).as("node 2, held up")
			.isLessThanOrEqualTo(10_000);
		CompletableFuture<Boolean> shorter = CompletableFuture.supplyAsync(() -> lease.extend(Duration.ofSeconds(5)));
		// before the fix, the 5s extension went to every node now, ahead of the 30s one;
		// now it waits for the 30s one, within its call bound (1.3s), so the hold-up ends
		// here rather than when it returns: on a loaded machine, a hold-up of a fixed
		// second left it too little of its bound (it failed once in CI)
		Thread.sleep(300);
		release.countDown();
		assertThat(shorter.get(10, TimeUnit.SECONDS)).isTrue();
		longer.join(10_000);
		Thread.sleep(300); // every reply is in
		List<Long> remaining = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			remaining.add((Long) fleet.node(i).call("PTTL", "redlock:lock:{raced}"));
		}
		remaining.sort(Comparator.reverseOrder());
		long grantedByAQuorum = remaining.get(1); // two of three hold it at least this
													// long
		assertThat(lease.remainingValidity().toMillis()).as("believed validity vs node PTTLs %s", remaining)
			.isLessThanOrEqualTo(grantedByAQuorum);
		lease.release();
	}

}
