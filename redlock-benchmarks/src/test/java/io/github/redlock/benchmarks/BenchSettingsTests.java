package io.github.redlock.benchmarks;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The {@code bench.*} system properties.
 */
class BenchSettingsTests {

	@AfterEach
	void clear() {
		System.clearProperty("bench.restart-guard");
		System.clearProperty("bench.section-us");
		System.clearProperty("bench.two-jvms");
	}

	@Test
	void theRegistryRunsWithItsRestartGuardAndTwoJvmsByDefault() {
		BenchSettings settings = BenchSettings.fromSystemProperties();
		assertThat(settings.restartGuard()).isTrue();
		assertThat(settings.twoJvms()).isTrue();
		assertThat(settings.section()).isEqualTo(Duration.ofNanos(20_000));
		assertThat(settings.forSecondJvm()).contains("-Dbench.restart-guard=true");
	}

	@Test
	void theRestartGuardCanBeTurnedOffForBothJvms() {
		System.setProperty("bench.restart-guard", "FALSE");
		BenchSettings settings = BenchSettings.fromSystemProperties();
		assertThat(settings.restartGuard()).isFalse();
		assertThat(settings.forSecondJvm()).contains("-Dbench.restart-guard=false");
	}

	@Test
	void aBooleanThatIsNeitherTrueNorFalseIsRefusedByName() {
		System.setProperty("bench.two-jvms", "yes");
		assertThatIllegalArgumentException().isThrownBy(BenchSettings::fromSystemProperties)
			.withMessage("-Dbench.two-jvms=yes is neither true nor false; leave it out for the default, true");
	}

	@Test
	void aNegativeSectionIsRefusedByName() {
		System.setProperty("bench.section-us", "-1");
		assertThatIllegalArgumentException().isThrownBy(BenchSettings::fromSystemProperties)
			.withMessage("-Dbench.section-us=-1 is not a whole number of at least 0; leave it out for the default, 20");
	}

}
