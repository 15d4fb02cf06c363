package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.lease.ExpiryChecks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The registry's one expiry timer looks only at the leases that are due when it fires,
 * however many it watches (issue 23, item 8). Here 2,000 leases are held idle for a
 * minute while one more is kept extended every third of its 4 s TTL, so the timer fires a
 * few times a second for that one lease.
 * <p>
 * Before the fix each firing walked every watched lease: this test failed with
 * "[watchdogs looked at per firing] Expecting actual: 2001.0 to be less than: 50.0" (the
 * figure is printed below; it was about the number of leases).
 */
class ManyWatchedLeasesIntegrationTests {

	private static final int LEASES = 2000;

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private RedlockRegistry registry;

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close();
		}
	}

	@Test
	void aFiringLooksOnlyAtTheLeasesThatAreDue() throws Exception {
		this.registry = TestRegistries.builder(fleet)
			.nodeTimeout(Duration.ofSeconds(1))
			.connectTimeout(Duration.ofSeconds(10))
			.build()
			.start();
		List<Lease> idle = new ArrayList<>();
		for (int batch = 0; batch < LEASES / 50; batch++) {
			List<CompletableFuture<Lease>> acquiring = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				acquiring.add(this.registry.acquireAsync("idle:" + (batch * 50 + i), Duration.ofSeconds(60),
						Duration.ofSeconds(30)));
			}
			for (CompletableFuture<Lease> lease : acquiring) {
				idle.add(lease.get(60, TimeUnit.SECONDS));
			}
		}
		ExpiryChecks checks = this.registry.parts().expiryChecks();
		assertThat(checks.size()).isEqualTo(LEASES);
		Lease busy = this.registry.acquire("busy", Duration.ofSeconds(4), Duration.ofSeconds(30), true);
		long examinedBefore = checks.examined();
		long firingsBefore = checks.firings();
		// a few renewals of the busy lease, a firing each at least
		await().atMost(Duration.ofSeconds(60)).until(() -> checks.firings() - firingsBefore >= 10);
		long firings = checks.firings() - firingsBefore;
		double perFiring = (double) (checks.examined() - examinedBefore) / firings;
		System.out.printf("%d watched leases: %d firings, %.1f watchdogs looked at per firing%n", LEASES + 1, firings,
				perFiring);
		assertThat(busy.isHeld()).isTrue();
		assertThat(perFiring).as("watchdogs looked at per firing").isLessThan(50.0);
		busy.release();
		idle.forEach(Lease::release);
		assertThat(checks.size()).isZero();
	}

}
