package io.github.redlock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Distinct keys never share a lock through the Spring Integration registry: for each pair
 * of {@link DistinctKeys}, {@code obtain} gives each key a local lock of its own, a
 * thread holding the one key leaves the other to another thread of the same registry, and
 * another process's registry finds both held.
 */
class RedlockLockRegistryDistinctKeysIntegrationTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	static final List<Pair> pairs = DistinctKeys.pairs();

	static final List<PrefixedPair> prefixedPairs = DistinctKeys.prefixedPairs();

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final List<RedlockRegistry> redlocks = new ArrayList<>();

	/** One thread, so that a lock it takes is unlocked by the thread that holds it. */
	private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

	@AfterEach
	void close() {
		this.otherThread.shutdownNow();
		this.redlocks.forEach(RedlockRegistry::close);
	}

	@ParameterizedTest(name = "{0}")
	@FieldSource("pairs")
	void twoThreadsHoldTheTwoKeysOfAPairAtOnce(Pair pair) throws Exception {
		RedlockLockRegistry registry = registry("redlock:");
		RedlockLockRegistry otherProcess = registry("redlock:");
		FencedLock one = registry.obtain(pair.one());
		FencedLock other = registry.obtain(pair.other());
		assertThat(other).as("the local lock of '%s'", pair.other()).isNotSameAs(one);
		assertThat(registry.obtain(pair.one())).as("the local lock of '%s' again", pair.one()).isSameAs(one);
		assertThat(one.tryLock()).as("'%s'", pair.one()).isTrue();
		try {
			boolean otherLocked = inOtherThread(other::tryLock);
			assertThat(otherLocked).as("'%s' while '%s' is held", pair.other(), pair.one()).isTrue();
			assertThat(otherProcess.obtain(pair.one()).tryLock()).as("'%s' itself", pair.one()).isFalse();
			assertThat(otherProcess.obtain(pair.other()).tryLock()).as("'%s' itself", pair.other()).isFalse();
			inOtherThread(() -> {
				other.unlock();
				return true;
			});
		}
		finally {
			one.unlock();
		}
	}

	@ParameterizedTest(name = "{0}")
	@FieldSource("prefixedPairs")
	void keysUnderPrefixesThatMeetAreHeldAtOnce(PrefixedPair pair) {
		FencedLock one = registry(pair.onePrefix()).obtain(pair.one());
		FencedLock other = registry(pair.otherPrefix()).obtain(pair.other());
		assertThat(one.tryLock()).as("'%s' under '%s'", pair.one(), pair.onePrefix()).isTrue();
		try {
			assertThat(other.tryLock())
				.as("'%s' under '%s' while '%s' under '%s' is held", pair.other(), pair.otherPrefix(), pair.one(),
						pair.onePrefix())
				.isTrue();
			other.unlock();
			assertThat(registry(pair.onePrefix()).obtain(pair.one()).tryLock()).as("'%s' itself", pair.one()).isFalse();
		}
		finally {
			one.unlock();
		}
	}

	@Test
	void keysLongerThanTheLongestAreRefusedRatherThanShortened() {
		RedlockLockRegistry registry = registry("redlock:");
		Pair tooLong = DistinctKeys.tooLong();
		for (String key : List.of(tooLong.one(), tooLong.other())) {
			assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(key).tryLock())
				.withMessageContaining("10000 characters long; the limit is " + RedlockRegistry.MAX_KEY_LENGTH);
		}
	}

	private RedlockLockRegistry registry(String keyPrefix) {
		RedlockRegistry redlock = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(false)
			.nodeTimeout(DistinctKeys.NODE_TIMEOUT)
			.connectTimeout(DistinctKeys.CONNECT_TIMEOUT)
			.keyPrefix(keyPrefix)
			.build()
			.start();
		this.redlocks.add(redlock);
		return new RedlockLockRegistry(redlock, TTL);
	}

	private <T> T inOtherThread(Callable<T> action) throws Exception {
		return this.otherThread.submit(action).get(1, TimeUnit.MINUTES);
	}

}
