package io.github.redlock.engine.quorum;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ValidityTests {

	private final Validity validity = new Validity(0.01, Duration.ofMillis(100).toNanos());

	@Test
	void driftIsOnePercentOfTheTtlPlusTwoMilliseconds() {
		assertThat(this.validity.driftNanos(Duration.ofSeconds(10).toNanos()))
			.isEqualTo(Duration.ofMillis(102).toNanos());
		assertThat(this.validity.driftNanos(Duration.ofMillis(100).toNanos()))
			.isEqualTo(Duration.ofMillis(3).toNanos());
	}

	@Test
	void lockIsValidUntilStartPlusTtlLessDrift() {
		long start = 5_000_000_000L;
		long ttl = Duration.ofSeconds(10).toNanos();
		assertThat(this.validity.validUntil(start, ttl)).isEqualTo(start + ttl - Duration.ofMillis(102).toNanos());
	}

	@Test
	void zeroDriftFactorStillAllowsTwoMilliseconds() {
		Validity noDrift = new Validity(0, Duration.ofMillis(100).toNanos());
		assertThat(noDrift.validUntil(0, Duration.ofSeconds(1).toNanos())).isEqualTo(Duration.ofMillis(998).toNanos());
	}

	@Test
	void onlyATtlNoLongerThanItsDriftCannotBeValid() {
		assertThat(this.validity.canBeValid(Duration.ofMillis(2).toNanos())).isFalse();
		assertThat(this.validity.canBeValid(Duration.ofMillis(3).toNanos())).isTrue();
		assertThat(this.validity.leastTtlMillis()).isEqualTo(3);
		// a drift factor near its bound of 0.5 needs a little more than twice 2 ms
		assertThat(new Validity(0.49, 0).leastTtlMillis()).isEqualTo(4);
	}

	@Test
	void aCallWaitsTheNodeTimeoutOrAThirdOfAShorterTtlButAtLeastOneMillisecond() {
		assertThat(this.validity.callTimeoutNanos(Duration.ofSeconds(10).toNanos()))
			.isEqualTo(Duration.ofMillis(100).toNanos());
		assertThat(this.validity.callTimeoutNanos(Duration.ofMillis(300).toNanos()))
			.isEqualTo(Duration.ofMillis(100).toNanos());
		assertThat(this.validity.callTimeoutNanos(Duration.ofMillis(60).toNanos()))
			.isEqualTo(Duration.ofMillis(20).toNanos());
		assertThat(this.validity.callTimeoutNanos(Duration.ofMillis(2).toNanos()))
			.isEqualTo(Duration.ofMillis(1).toNanos());
	}

}
