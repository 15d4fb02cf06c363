package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Many leases whose renewals fall due at once, as they do for leases acquired together:
 * the watchdog must keep them all extended, however many there are, within the node
 * timeout that each extension waits for. Here the test's clock moves a third of the TTL
 * forward, so that the next firing of the registry's lease timer finds every lease due.
 * <p>
 * Before the watchdog's renewals went through a bounded window, that firing sent every
 * renewal at once: the commands at the tail of the burst timed out behind it, and the
 * failed renewals were retried together seconds later. This test failed with "[leases not
 * extended within 5 s of their renewals falling due] expected: 0L but was: 4066L" (the
 * figure is printed below).
 */
class RenewalBurstIntegrationTests {

	private static final int LEASES = 20_000;

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	private final ManualClock clock = new ManualClock();

	@Test
	void renewalsThatFallDueTogetherAllExtendTheirLeases() throws Exception {
		// three times the default node timeout: a loaded machine's stalls do not fail a
		// window of renewals, while the burst of all of them still outlasts it
		RedlockRegistry registry = this.registries.start(TestRegistries.builder(fleet)
			.nodeTimeout(Duration.ofMillis(300))
			.tune((options) -> options.clock = this.clock));
		// kept extended every second, it makes the lease timer fire at least that often
		Lease pacer = registry.acquire("burst:pacer", Duration.ofSeconds(3), Duration.ofSeconds(30), true);
		List<Lease> leases = new ArrayList<>();
		for (int batch = 0; batch < LEASES / 250; batch++) {
			List<CompletableFuture<Lease>> acquiring = new ArrayList<>();
			for (int i = 0; i < 250; i++) {
				acquiring.add(registry.acquireAsync("burst:" + (batch * 250 + i), TTL, Duration.ofSeconds(30), true));
			}
			for (CompletableFuture<Lease> lease : acquiring) {
				leases.add(lease.get(60, TimeUnit.SECONDS));
			}
		}
		// every renewal (a third of the TTL after its lease was acquired) is due now, and
		// the timer fires within a second (the pacer runs out meanwhile)
		this.clock.advance(TTL.dividedBy(3).plusSeconds(1));
		long due = System.nanoTime();
		Duration extended = TTL.minusSeconds(5);
		// a failed renewal is retried a third of the validity left later, well after 5 s
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> notExtended(leases, extended) == 0 || System.nanoTime() - due > 5_000_000_000L);
		long left = notExtended(leases, extended);
		System.out.printf("%d of %d leases not extended within 5 s of their renewals falling due%n", left, LEASES);
		assertThat(left).as("leases not extended within 5 s of their renewals falling due").isZero();
		assertThat(leases).allMatch(Lease::isHeld);
		pacer.release();
		leases.forEach(Lease::release);
	}

	private static long notExtended(List<Lease> leases, Duration extended) {
		return leases.stream().filter((lease) -> lease.remainingValidity().compareTo(extended) < 0).count();
	}

}
