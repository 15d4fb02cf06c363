package io.github.redlock.engine;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockLostException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.lease.ExpiryChecks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The registry's one expiry timer ({@link ExpiryChecks}, issue 15): short holds set no
 * timer each, yet a lease is still reported lost when its own validity ends, also when it
 * ends before that of every lease held before it; renewals run on the same timer. The
 * scheduler thread's wake-ups over 300 short holds, plain and auto-extended: 299 and 594
 * with a scheduled task per expiry check and per renewal (before issue 15's timer), 1 and
 * 301 with the timer for expiry checks only, 1 and 1 now. Deliberately broken, a timer
 * that is never moved earlier failed the tests of a short lease after a long one (the
 * short lease was reported only when the long one's timer fired).
 */
class ExpiryChecksIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final List<RedlockRegistry> registries = new ArrayList<>();

	@AfterEach
	void close() {
		this.registries.forEach(RedlockRegistry::close);
	}

	private RedlockRegistry registry() {
		RedlockRegistry registry = TestRegistries.builder(fleet).maxTtl(Duration.ofSeconds(60)).build().start();
		this.registries.add(registry);
		return registry;
	}

	@Test
	void shortHoldsShareOneTimerAndLeaveNothingWatched() throws Exception {
		RedlockRegistry registry = registry();
		long wokenBefore = schedulerWakeUps();
		for (int i = 0; i < 300; i++) {
			registry.acquire("order:" + i, Duration.ofSeconds(10), Duration.ofSeconds(5)).release();
		}
		ExpiryChecks checks = registry.parts().expiryChecks();
		// one per lease before; the first lease sets it, later ones end after it
		assertThat(checks.timersSet()).isLessThanOrEqualTo(3);
		assertThat(checks.size()).isZero();
		// the thing that cost: each lease's check became the scheduler's next task and
		// woke its thread (more than 300 here before)
		assertThat(schedulerWakeUps() - wokenBefore).isLessThan(30);
	}

	@Test
	void autoExtendedShortHoldsShareTheTimerToo() throws Exception {
		RedlockRegistry registry = registry();
		long wokenBefore = schedulerWakeUps();
		for (int i = 0; i < 300; i++) {
			registry.acquire("job:" + i, Duration.ofSeconds(10), Duration.ofSeconds(5), true).release();
		}
		// a renewal is due at a third of the TTL, before the expiry: the first one moves
		// the timer there, later ones are due after it
		assertThat(registry.parts().expiryChecks().timersSet()).isLessThanOrEqualTo(4);
		assertThat(registry.parts().expiryChecks().size()).isZero();
		assertThat(schedulerWakeUps() - wokenBefore).isLessThan(30);
	}

	@Test
	void anAutoExtendedLeaseTakenAfterALongOneIsRenewedOnTime() throws Exception {
		RedlockRegistry registry = registry();
		try (Lease longOne = registry.acquire("long-renewed", Duration.ofSeconds(60), Duration.ofSeconds(5));
				Lease shortOne = registry.acquire("short-renewed", Duration.ofSeconds(1), Duration.ofSeconds(5),
						true)) {
			CompletableFuture<LockLostException> lost = new CompletableFuture<>();
			shortOne.addListener((lease, cause) -> lost.complete(cause));
			// three TTLs: renewed twice at least, each due at a third of a TTL
			Thread.sleep(3000);
			assertThat(lost).isNotDone();
			assertThat(shortOne.isHeld()).isTrue();
			assertThat(longOne.isHeld()).isTrue();
		}
	}

	/**
	 * Returns how often the registries' scheduler threads have waited so far: each
	 * wake-up ends one wait and starts another.
	 */
	private static long schedulerWakeUps() {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		long waited = 0;
		for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
			if (info != null && info.getThreadName().equals("redlock-watchdog")) {
				waited += info.getWaitedCount();
			}
		}
		return waited;
	}

	@Test
	void aShortLeaseTakenAfterALongOneIsReportedLostWhenItsOwnValidityEnds() throws Exception {
		RedlockRegistry registry = registry();
		try (Lease longOne = registry.acquire("long", Duration.ofSeconds(60), Duration.ofSeconds(5))) {
			Lease shortOne = registry.acquire("short", Duration.ofSeconds(1), Duration.ofSeconds(5));
			CompletableFuture<LockLostException> lost = new CompletableFuture<>();
			shortOne.addListener((lease, cause) -> lost.complete(cause));
			// well before the long lease's timer (60 s), however loaded the machine
			assertThat(lost.get(20, TimeUnit.SECONDS).getMessage())
				.contains("its validity ran out before it was released or extended");
			assertThat(longOne.isHeld()).isTrue();
			assertThat(registry.parts().expiryChecks().size()).isEqualTo(1);
		}
		assertThat(registry.parts().expiryChecks().size()).isZero();
	}

}
