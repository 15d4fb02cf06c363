package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockLostException;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The registry's one expiry timer ({@link ExpiryChecks}, issue 15): short holds set no
 * timer each, yet a lease is still reported lost when its own validity ends, also when it
 * ends before that of every lease held before it. Deliberately broken, a timer that is
 * never moved earlier failed the second test (the short lease was reported only when the
 * long one's timer fired), and one timer per lease failed the first.
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
		RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(false)
			.maxTtl(Duration.ofSeconds(60))
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	@Test
	void shortHoldsShareOneTimerAndLeaveNothingWatched() throws Exception {
		RedlockRegistry registry = registry();
		for (int i = 0; i < 300; i++) {
			registry.acquire("order:" + i, Duration.ofSeconds(10), Duration.ofSeconds(5)).release();
		}
		ExpiryChecks checks = registry.expiryChecks();
		// one per lease before; the first lease sets it, later ones end after it
		assertThat(checks.timersSet()).isLessThanOrEqualTo(3);
		assertThat(checks.size()).isZero();
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
			assertThat(registry.expiryChecks().size()).isEqualTo(1);
		}
		assertThat(registry.expiryChecks().size()).isZero();
	}

}
