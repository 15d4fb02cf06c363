package io.github.redlock.engine;

import java.time.Duration;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.quorum.Validity;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Validity with drift, on a clock the test controls, against real nodes.
 */
class ValidityIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ManualClock clock = new ManualClock();

	private RedlockRegistry registry;

	@BeforeEach
	void createRegistry() {
		this.registry = TestRegistries.builder(fleet)
			.nodeTimeout(Duration.ofSeconds(1))
			.defaultTtl(Duration.ofSeconds(60))
			.tune((options) -> options.clock = this.clock)
			.build()
			.start();
	}

	@AfterEach
	void closeRegistry() {
		this.registry.close();
	}

	@Test
	void remainingValidityIsTtlLessElapsedLessDrift() throws Exception {
		Lease lease = this.registry.acquire("v", Duration.ofSeconds(10), Duration.ZERO);
		// drift for 10s is 102ms; the round trip took some of the rest
		assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMillis(9898))
			.isGreaterThan(Duration.ofMillis(8000));
		this.clock.advance(Duration.ofSeconds(5));
		assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMillis(4898));
		assertThat(lease.isHeld()).isTrue();
		lease.release();
	}

	@Test
	void leaseIsNotHeldOnceValidityHasPassedEvenBeforeTheKeysExpire() throws Exception {
		Lease lease = this.registry.acquire("v", Duration.ofSeconds(10), Duration.ZERO);
		this.clock.advance(Duration.ofMillis(9898));
		assertThat(lease.isHeld()).isFalse();
		assertThat(lease.remainingValidity()).isZero();
		assertThat(lease.extend(Duration.ofSeconds(10))).isFalse();
		lease.release();
	}

	@Test
	void attemptThatTakesLongerThanTtlLessDriftIsNotAcquiredAndLeavesNoKey() {
		// the readings are: wait-time deadline, attempt start, quorum reached
		this.clock.jumpOnReading(3, Duration.ofMillis(9898));
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.registry.acquire("slow", Duration.ofSeconds(10), Duration.ZERO))
			.withMessageContaining("leaves no validity");
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(fleet.fleet().nodes())
				.allSatisfy((node) -> assertThat(node.call("KEYS", "redlock:lock:*")).asList().isEmpty()));
	}

	@Test
	void attemptJustInsideTheValidityIsAcquired() throws Exception {
		this.clock.jumpOnReading(3, Duration.ofMillis(9800));
		try (Lease lease = this.registry.acquire("fast", Duration.ofSeconds(10), Duration.ZERO)) {
			assertThat(lease.isHeld()).isTrue();
			assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMillis(98));
		}
	}

}
