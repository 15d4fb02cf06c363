package io.github.redlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.DistinctKeys;
import io.github.redlock.embedded.DistinctKeys.Pair;
import io.github.redlock.embedded.DistinctKeys.PrefixedPair;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Distinct keys never share a lock through {@code @DistributedLock}: for each pair of
 * {@link DistinctKeys}, a call locked on the one key and a call on another thread locked
 * on the other run at once, and another process finds both keys held meanwhile; so do a
 * collection key of both, and calls of two applications whose key prefixes meet.
 */
class DistinctKeysAnnotationIntegrationTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	static final List<Pair> pairs = DistinctKeys.pairs();

	static final List<PrefixedPair> prefixedPairs = DistinctKeys.prefixedPairs();

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final List<RedlockRegistry> otherProcesses = new ArrayList<>();

	@AfterEach
	void close() {
		this.otherProcesses.forEach(RedlockRegistry::close);
	}

	@ParameterizedTest(name = "{0}")
	@FieldSource("pairs")
	void callsLockedOnTheTwoKeysOfAPairRunAtOnce(Pair pair) {
		RedlockRegistry otherProcess = otherProcess("redlock:");
		contextRunner("redlock:").run((context) -> {
			PairService service = context.getBean(PairService.class);
			boolean bothHeld = service.whileHolding(pair.one(),
					() -> onAnotherThread(() -> service.whileHolding(pair.other(),
							() -> isHeld(otherProcess, pair.one()) && isHeld(otherProcess, pair.other()))));
			assertThat(bothHeld).as("'%s' and '%s' held at once", pair.one(), pair.other()).isTrue();
		});
	}

	@ParameterizedTest(name = "{0}")
	@FieldSource("pairs")
	void aCollectionKeyOfBothKeysOfAPairLocksEach(Pair pair) {
		RedlockRegistry otherProcess = otherProcess("redlock:");
		contextRunner("redlock:").run((context) -> {
			PairService service = context.getBean(PairService.class);
			List<String> held = service.whileHoldingAll(List.of(pair.one(), pair.other()),
					() -> List.of(pair.one(), pair.other())
						.stream()
						.filter((key) -> isHeld(otherProcess, key))
						.toList());
			assertThat(held).containsExactlyInAnyOrder(pair.one(), pair.other());
		});
	}

	@ParameterizedTest(name = "{0}")
	@FieldSource("prefixedPairs")
	void callsOfApplicationsWhosePrefixesMeetRunAtOnce(PrefixedPair pair) {
		RedlockRegistry otherProcess = otherProcess(pair.onePrefix());
		contextRunner(pair.onePrefix()).run((one) -> contextRunner(pair.otherPrefix()).run((other) -> {
			boolean bothHeld = one.getBean(PairService.class)
				.whileHolding(pair.one(), () -> onAnotherThread(() -> other.getBean(PairService.class)
					.whileHolding(pair.other(), () -> isHeld(otherProcess, pair.one()))));
			assertThat(bothHeld)
				.as("'%s' under '%s' and '%s' under '%s' held at once", pair.one(), pair.onePrefix(), pair.other(),
						pair.otherPrefix())
				.isTrue();
		}));
	}

	@Test
	void keysLongerThanTheLongestAreRefusedRatherThanShortened() {
		contextRunner("redlock:").run((context) -> {
			PairService service = context.getBean(PairService.class);
			Pair tooLong = DistinctKeys.tooLong();
			for (String key : List.of(tooLong.one(), tooLong.other())) {
				assertThatIllegalArgumentException().isThrownBy(() -> service.whileHolding(key, () -> true))
					.withMessageContaining("10000 characters long; the limit is " + RedlockRegistry.MAX_KEY_LENGTH);
			}
		});
	}

	private static ApplicationContextRunner contextRunner(String keyPrefix) {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
			.withPropertyValues(
					FleetProperties.of(fleet, "redlock.node-timeout=" + DistinctKeys.NODE_TIMEOUT.toMillis() + "ms",
							"redlock.connect-timeout=" + DistinctKeys.CONNECT_TIMEOUT.toMillis() + "ms",
							"redlock.key-prefix=" + keyPrefix))
			.withUserConfiguration(PairConfig.class);
	}

	private RedlockRegistry otherProcess(String keyPrefix) {
		RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(false)
			.nodeTimeout(DistinctKeys.NODE_TIMEOUT)
			.connectTimeout(DistinctKeys.CONNECT_TIMEOUT)
			.keyPrefix(keyPrefix)
			.build()
			.start();
		this.otherProcesses.add(registry);
		return registry;
	}

	/** Whether another process finds the key held: its one attempt gets nothing. */
	private static boolean isHeld(RedlockRegistry otherProcess, String key) {
		return otherProcess.tryAcquire(key, TTL).map((lease) -> {
			lease.release();
			return false;
		}).orElse(true);
	}

	private static <T> T onAnotherThread(Callable<T> action) throws Exception {
		try {
			return CompletableFuture.supplyAsync(() -> {
				try {
					return action.call();
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			}).get(1, TimeUnit.MINUTES);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(ex.getCause());
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class PairConfig {

		@Bean
		PairService pairService() {
			return new PairService();
		}

	}

	static class PairService {

		@DistributedLock(key = "#key", waitTime = "0s")
		<T> T whileHolding(String key, Callable<T> inside) throws Exception {
			return inside.call();
		}

		@DistributedLock(key = "#keys", waitTime = "0s")
		<T> T whileHoldingAll(List<String> keys, Callable<T> inside) throws Exception {
			return inside.call();
		}

	}

}
