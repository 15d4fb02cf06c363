package io.github.redlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.redlock.Lease;
import io.github.redlock.embedded.DistinctKeys;
import io.github.redlock.embedded.DistinctKeys.Pair;
import io.github.redlock.embedded.DistinctKeys.PrefixedPair;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Distinct keys never share a lock, through {@code LockRegistry}: each pair of
 * {@link DistinctKeys} differs the way keys broke in other libraries. Holding one, the
 * other is free, for the exclusive lock, the write lock and a semaphore of one permit,
 * while the held key itself is not. The annotation, ShedLock's provider and the Spring
 * Integration registry run the same pairs in their modules.
 */
class DistinctKeysIntegrationTests {

	private static final Duration TTL = Duration.ofSeconds(10);

	static final List<Pair> pairs = DistinctKeys.pairs();

	static final List<PrefixedPair> prefixedPairs = DistinctKeys.prefixedPairs();

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	@ParameterizedTest(name = "{0}")
	@FieldSource("pairs")
	void holdingOneLeavesTheOtherFree(Pair pair) throws Exception {
		assertThat(pair.one()).isNotEqualTo(pair.other());
		RedlockRegistry holder = this.registries.start(builder());
		RedlockRegistry contender = this.registries.start(builder());
		for (List<String> keys : List.of(List.of(pair.one(), pair.other()), List.of(pair.other(), pair.one()))) {
			String held = keys.get(0);
			String free = keys.get(1);
			try (Lease lease = holder.acquire(held, TTL, Duration.ofSeconds(5))) {
				Optional<Lease> mutex = contender.tryAcquire(free, TTL);
				assertThat(mutex).as("the exclusive lock of '%s' while '%s' is held", free, held).isPresent();
				mutex.get().release();
				try (Lease write = contender.acquireWrite(free, TTL, Duration.ZERO)) {
					assertThat(write.isHeld()).isTrue();
				}
				assertThat(contender.tryAcquire(held, TTL)).as("'%s' itself", held).isEmpty();
			}
			try (Lease permit = holder.semaphore(held, 1).acquire(TTL, Duration.ofSeconds(5))) {
				Optional<Lease> other1 = contender.semaphore(free, 1).tryAcquire(TTL);
				assertThat(other1).as("the semaphore of '%s' while '%s' has its one permit", free, held).isPresent();
				other1.get().release();
			}
		}
	}

	@ParameterizedTest(name = "{0}")
	@FieldSource("prefixedPairs")
	void holdingOneUnderItsPrefixLeavesTheOtherFreeUnderItsOwn(PrefixedPair pair) throws Exception {
		RedlockRegistry one = this.registries.start(builder().keyPrefix(pair.onePrefix()));
		RedlockRegistry other = this.registries.start(builder().keyPrefix(pair.otherPrefix()));
		RedlockRegistry oneElsewhere = this.registries.start(builder().keyPrefix(pair.onePrefix()));
		try (Lease lease = one.acquire(pair.one(), TTL, Duration.ofSeconds(5))) {
			Optional<Lease> free = other.tryAcquire(pair.other(), TTL);
			assertThat(free)
				.as("'%s' under '%s' while '%s' under '%s' is held", pair.other(), pair.otherPrefix(), pair.one(),
						pair.onePrefix())
				.isPresent();
			free.get().release();
			assertThat(oneElsewhere.tryAcquire(pair.one(), TTL)).as("'%s' itself", pair.one()).isEmpty();
		}
	}

	private static RedlockRegistry.Builder builder() {
		return TestRegistries.builder(fleet)
			.nodeTimeout(DistinctKeys.NODE_TIMEOUT)
			.connectTimeout(DistinctKeys.CONNECT_TIMEOUT);
	}

	@Test
	void keysLongerThanTheLongestAreRefusedRatherThanShortened() {
		assertThat(DistinctKeys.LONGEST_KEY).isEqualTo(RedlockRegistry.MAX_KEY_LENGTH);
		RedlockRegistry registry = this.registries.start(builder());
		Pair tooLong = DistinctKeys.tooLong();
		for (String key : List.of(tooLong.one(), tooLong.other())) {
			assertThatIllegalArgumentException().isThrownBy(() -> registry.tryAcquire(key, TTL))
				.withMessageContaining(String.valueOf(RedlockRegistry.MAX_KEY_LENGTH));
		}
	}

}
