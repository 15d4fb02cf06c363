package io.github.redlock.engine;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RedlockRegistryBuilderTests {

	@Test
	void noNodesIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> RedlockRegistry.builder().build())
			.withMessageContaining("No nodes")
			.withMessageContaining("redis://");
	}

	@Test
	void nonRedisSchemeIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedlockRegistry.builder().nodes("redis://a:6379", "http://b:6379").build())
			.withMessageContaining("Node 1 'http://b:6379' is not a redis:// or rediss:// URI");
	}

	@Test
	void malformedUriIsRefusedWithoutShowingItsPassword() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedlockRegistry.builder().nodes("redis://:s3cret@host:notaport").build())
			.withMessageContaining("Node 0")
			.withMessageNotContaining("s3cret");
	}

	@Test
	void duplicateNodeIsRefusedWithoutShowingItsPassword() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedlockRegistry.builder()
				.nodes("redis://:s3cret@10.0.0.1:6379", "redis://10.0.0.2:6379", "redis://:s3cret@10.0.0.1:6379")
				.build())
			.withMessageContaining("Node 2 'redis://10.0.0.1:6379' is listed twice")
			.withMessageNotContaining("s3cret");
	}

	@Test
	void sameHostWithAnotherDatabaseIsADistinctNode() {
		try (RedlockRegistry registry = RedlockRegistry.builder()
			.nodes("redis://10.0.0.1:6379/0", "redis://10.0.0.1:6379/1", "redis://10.0.0.1:6379/2")
			.build()) {
			assertThat(registry.toString()).contains("redis://10.0.0.1:6379/1", "quorum 2");
		}
	}

	@Test
	void registryDescriptionShowsNoCredentials() {
		try (RedlockRegistry registry = RedlockRegistry.builder()
			.nodes("rediss://app:s3cret@10.0.0.1:6380", "redis://:s3cret@10.0.0.2:6379")
			.build()) {
			assertThat(registry.toString()).contains("rediss://10.0.0.1:6380", "redis://10.0.0.2:6379")
				.doesNotContain("s3cret")
				.doesNotContain("app");
		}
	}

	@Test
	void nodeTimeoutNotWellBelowTheTtlIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedlockRegistry.builder()
				.nodes("redis://a:6379")
				.nodeTimeout(Duration.ofSeconds(1))
				.defaultTtl(Duration.ofSeconds(5))
				.build())
			.withMessageContaining("nodeTimeout 1000ms is not well below defaultTtl 5000ms");
	}

	@Test
	void nonPositiveDurationsAreRefusedByName() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedlockRegistry.builder().nodes("redis://a:6379").defaultTtl(Duration.ZERO).build())
			.withMessageContaining("defaultTtl must be positive");
		assertThatIllegalArgumentException()
			.isThrownBy(
					() -> RedlockRegistry.builder().nodes("redis://a:6379").retryDelay(Duration.ofMillis(-1)).build())
			.withMessageContaining("retryDelay must be zero or positive");
	}

	@Test
	void defaultTtlAboveTheMaximumTtlIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedlockRegistry.builder()
				.nodes("redis://a:6379")
				.defaultTtl(Duration.ofMinutes(5))
				.maxTtl(Duration.ofMinutes(1))
				.build())
			.withMessageContaining("defaultTtl 5m is above maxTtl 1m");
	}

	@Test
	void fencingRetentionUnderTwoSecondsIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedlockRegistry.builder()
				.nodes("redis://a:6379")
				.fencingRetention(Duration.ofMillis(1500))
				.build())
			.withMessageContaining("fencingRetention 1500ms is under 2s");
	}

	@Test
	void maxTtlUnderOneSecondWithTheRestartGuardIsRefused() {
		// issue 23 item 9: accepted before, though fencing tokens across node restarts
		// rest on the guard (maxTtl) being well above twice the clock skew
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedlockRegistry.builder()
				.nodes("redis://a:6379")
				.nodeTimeout(Duration.ofMillis(20))
				.defaultTtl(Duration.ofMillis(500))
				.maxTtl(Duration.ofMillis(500))
				.build())
			.withMessageContaining("maxTtl 500ms is under 1s with the restart guard on")
			.withMessageContaining("clock skew");
	}

	@Test
	void maxTtlUnderOneSecondWithoutTheRestartGuardIsAccepted() {
		RedlockRegistry.builder()
			.nodes("redis://a:6379")
			.nodeTimeout(Duration.ofMillis(20))
			.defaultTtl(Duration.ofMillis(500))
			.maxTtl(Duration.ofMillis(500))
			.restartGuard(false)
			.build()
			.close();
	}

	@Test
	void keyPrefixWithABraceIsRefused() {
		for (String prefix : new String[] { "{app}:", "app{", "app}:" }) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> RedlockRegistry.builder().nodes("redis://a:6379").keyPrefix(prefix).build())
				.withMessageContaining("keyPrefix '" + prefix + "' holds a brace")
				.withMessageContaining("remove the braces from the prefix");
		}
	}

	@Test
	void driftFactorOutOfRangeIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedlockRegistry.builder().nodes("redis://a:6379").driftFactor(0.7).build())
			.withMessageContaining("driftFactor must be at least 0 and below 0.5");
	}

	@Test
	void silentNodeTimeoutsBelowOneAreRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedlockRegistry.builder().nodes("redis://a:6379").silentNodeTimeouts(0).build())
			.withMessageContaining("silentNodeTimeouts must be at least 1, was 0")
			.withMessageContaining("the default is 3");
	}

	@Test
	void silentNodeProbeIntervalMustBePositiveAndAtMostAMinute() {
		assertThatIllegalArgumentException().isThrownBy(
				() -> RedlockRegistry.builder().nodes("redis://a:6379").silentNodeProbeInterval(Duration.ZERO).build())
			.withMessageContaining("silentNodeProbeInterval must be positive");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedlockRegistry.builder().nodes("redis://a:6379").silentNodeProbeInterval(null).build())
			.withMessageContaining("silentNodeProbeInterval must be positive, was null");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedlockRegistry.builder()
				.nodes("redis://a:6379")
				.silentNodeProbeInterval(Duration.ofMinutes(2))
				.build())
			.withMessageContaining("silentNodeProbeInterval 2m is above 1m")
			.withMessageContaining("probe at most every minute");
	}

	@Test
	void silentNodeSettingsWithinRangeAreAccepted() {
		try (RedlockRegistry registry = RedlockRegistry.builder()
			.nodes("redis://127.0.0.1:1")
			.silentNodeTimeouts(1)
			.silentNodeProbeInterval(Duration.ofMinutes(1))
			.build()) {
			assertThat(registry.nodeCount()).isEqualTo(1);
		}
	}

	@Test
	void buildingMakesNoConnection() {
		// nothing listens on port 1: building must not try
		try (RedlockRegistry registry = RedlockRegistry.builder().nodes("redis://127.0.0.1:1").build()) {
			assertThat(registry.heldLeases()).isZero();
		}
	}

}
