package io.github.redlock.engine.quorum;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ValidityTests {

	private final Validity validity = new Validity(0.01);

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
		Validity noDrift = new Validity(0);
		assertThat(noDrift.validUntil(0, Duration.ofSeconds(1).toNanos())).isEqualTo(Duration.ofMillis(998).toNanos());
	}

}
