package io.github.redlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.Lease;
import io.github.redlock.LockLostException;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A listener added to a lease that is already lost ({@code Lease#addListener}: "Called at
 * once if the lease is already lost"; {@code LeaseListener}: "it is told at once, on the
 * caller's thread, when added to a lease that is already lost", and a lease is lost when
 * "the watchdog could not extend it on a majority of nodes, another owner replaced it, or
 * its validity ran out").
 */
class LateListenerIntegrationTests {

	private static final Duration TTL = Duration.ofSeconds(1);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@Test
	void aListenerAddedToALeaseLostToItsQuorumIsToldAtOnceOnTheCallersThread() throws Exception {
		try (RedlockRegistry registry = TestRegistries.builder(fleet).defaultTtl(TTL).maxTtl(TTL).build().start()) {
			Lease lease = registry.acquire("late-listener", TTL, Duration.ofSeconds(5), true);
			CompletableFuture<LockLostException> first = new CompletableFuture<>();
			lease.addListener((gone, cause) -> first.complete(cause));
			fleet.node(0).kill();
			fleet.node(1).kill();
			LockLostException firstCause = first.get(10, TimeUnit.SECONDS);
			assertThat(lease.isHeld()).isFalse();

			assertToldAtOnce(lease, firstCause.getMessage());
		}
	}

	/**
	 * The lease's validity has run out on the registry's clock, but the registry's timer,
	 * set by the real clock, has not yet looked: the lease is not held, was not released,
	 * and nobody extends it. A listener added then must be told at once as for any lost
	 * lease. Failed before the fix: the listener was not called by {@code addListener}
	 * (the thread that told it: "Expecting actual: null ... to refer to the same object"
	 * as main), only later, on a callback thread, once the timer found the lease expired;
	 * in a real process the same happened to a listener added between the end of the
	 * validity and the timer's check (a millisecond on an idle machine, more under load).
	 */
	@Test
	void aListenerAddedToALeaseWhoseValidityRanOutIsToldAtOnceOnTheCallersThread() throws Exception {
		ManualClock clock = new ManualClock();
		try (RedlockRegistry registry = TestRegistries.builder(fleet)
			.defaultTtl(Duration.ofSeconds(30))
			.tune((options) -> options.clock = clock)
			.build()
			.start()) {
			Lease lease = registry.acquire("late-listener-expired", Duration.ofSeconds(30), Duration.ofSeconds(5));
			clock.advance(Duration.ofSeconds(31)); // the timer checks 30 s from now, real
													// time
			assertThat(lease.isHeld()).isFalse();

			assertToldAtOnce(lease, "its validity ran out");
		}
	}

	private static void assertToldAtOnce(Lease lease, String reason) {
		AtomicReference<Thread> toldOn = new AtomicReference<>();
		AtomicReference<LockLostException> told = new AtomicReference<>();
		lease.addListener((gone, cause) -> {
			told.set(cause);
			toldOn.set(Thread.currentThread());
		});
		assertThat(toldOn.get()).as("the thread that told the late listener, before addListener returned")
			.isSameAs(Thread.currentThread());
		assertThat(told.get()).hasMessageContaining(lease.key()).hasMessageContaining(reason);
	}

}
