package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Many leases whose renewals fall due at once, as they do for leases acquired together:
 * the watchdog must send them so that none fails on its own account, however many there
 * are, within the node timeout that each extension waits for. Here the test's clock moves
 * a third of the TTL forward, so that the next firing of the registry's lease timer finds
 * every lease due, and the watchdog's log says which renewals failed.
 * <p>
 * Before the watchdog's renewals went through a bounded window, that firing sent every
 * renewal at once: the commands at the tail of the burst timed out behind it, and the
 * failed renewals were retried together seconds later. This test failed with "[renewals
 * that failed] expected: 0 but was: 15976" (the figure is printed below).
 */
class RenewalBurstIntegrationTests {

	private static final int LEASES = 20_000;

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	private final ManualClock clock = new ManualClock();

	private final LogCapture log = LogCapture.of(Level.FINE, "io.github.redlock.engine.lease.LeaseWatchdog");

	@AfterEach
	void closeLog() {
		this.log.close();
	}

	@Test
	void renewalsThatFallDueTogetherAllExtendTheirLeases() throws Exception {
		// three times the default node timeout: a loaded machine's stalls do not fail a
		// window of renewals, while the burst of all of them still outlasts it
		RedlockRegistry registry = this.registries.start(TestRegistries.builder(fleet)
			.nodeTimeout(Duration.ofMillis(300))
			.tune((options) -> options.clock = this.clock));
		// kept extended every second, it makes the lease timer fire at least that often
		Lease pacer = registry.acquire("pacer", Duration.ofSeconds(3), Duration.ofSeconds(30), true);
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
		Duration extended = TTL.minusSeconds(5);
		long due = System.nanoTime();
		// however slowly a loaded machine renews them, but no longer than a minute
		await().atMost(Duration.ofSeconds(90))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> notExtended(leases, extended) == 0 || System.nanoTime() - due > 60_000_000_000L);
		int failed = this.log.lines("Could not extend lock 'burst:").size();
		System.out.printf("%d renewals of %d leases due at once failed%n", failed, LEASES);
		assertThat(failed).as("renewals that failed").isZero();
		assertThat(notExtended(leases, extended)).as("leases not extended").isZero();
		assertThat(leases).allMatch(Lease::isHeld);
		pacer.release();
		leases.forEach(Lease::release);
	}

	private static long notExtended(List<Lease> leases, Duration extended) {
		return leases.stream().filter((lease) -> lease.remainingValidity().compareTo(extended) < 0).count();
	}

}
