package io.github.redlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Distinct keys never share a lock: each pair below differs the way keys broke in other
 * libraries (Spring Integration 7's issues 11146, 11157 and 11180 had distinct keys
 * sharing one lock), by case, by Unicode normalisation, by a hash tag of their own, by
 * the prefix's separator, past any length a cache or a truncation would keep, or only in
 * a colliding {@code String.hashCode}. Holding one, the other is free, for the exclusive
 * lock, the write lock and a semaphore of one permit, while the held key itself is not.
 * Through {@code LockRegistry} only: the annotation, ShedLock's provider and the Spring
 * Integration registry hand the key on unchanged (issue 39 asks for them too).
 */
class DistinctKeysIntegrationTests {

	private static final Duration TTL = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	static Stream<Arguments> pairs() {
		String longKey = "k".repeat(1023);
		return Stream.of(Arguments.of("case", "Order:1", "order:1"),
				Arguments.of("Unicode normalisation (NFC and NFD)", "caf\u00e9", "cafe\u0301"),
				Arguments.of("a hash tag of their own", "{x}a", "{x}b"), Arguments.of("a closing brace", "x}", "x}}"),
				Arguments.of("braces only", "{}", "{}{}"), Arguments.of("the prefix's separator", "lock:a", "a"),
				Arguments.of("the semaphore channel's word", "permits:x", "x"),
				Arguments.of("the last of 1,024 characters", longKey + "a", longKey + "b"),
				Arguments.of("a String.hashCode collision", "Aa", "BB"),
				Arguments.of("a longer String.hashCode collision", "AaAaBB", "BBBBAa"),
				Arguments.of("a surrogate pair", "\uD83D\uDD12", "\uD83D\uDD13"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("pairs")
	void holdingOneLeavesTheOtherFree(String how, String one, String other) throws Exception {
		assertThat(one).isNotEqualTo(other);
		RedlockRegistry holder = this.registries.start(TestRegistries.builder(fleet));
		RedlockRegistry contender = this.registries.start(TestRegistries.builder(fleet));
		for (List<String> keys : List.of(List.of(one, other), List.of(other, one))) {
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

}
