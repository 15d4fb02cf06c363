package io.github.redlock.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.redlock.embedded.DistinctKeys;
import io.github.redlock.embedded.DistinctKeys.Pair;
import io.github.redlock.embedded.DistinctKeys.PrefixedPair;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Distinct lock names never share a lock through ShedLock's provider: for each pair of
 * {@link DistinctKeys}, both names are locked at once, while a second provider over the
 * same nodes, another process's, finds each of them held.
 */
class RedlockLockProviderDistinctKeysIntegrationTests {

	static final List<Pair> pairs = DistinctKeys.pairs();

	static final List<PrefixedPair> prefixedPairs = DistinctKeys.prefixedPairs();

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final List<RedlockRegistry> registries = new ArrayList<>();

	@AfterEach
	void close() {
		this.registries.forEach(RedlockRegistry::close);
	}

	@ParameterizedTest(name = "{0}")
	@FieldSource("pairs")
	void bothNamesOfAPairAreLockedAtOnce(Pair pair) {
		RedlockLockProvider provider = provider("redlock:");
		RedlockLockProvider otherProcess = provider("redlock:");
		Optional<SimpleLock> one = provider.lock(lockConfig(pair.one()));
		assertThat(one).as("'%s'", pair.one()).isPresent();
		Optional<SimpleLock> other = provider.lock(lockConfig(pair.other()));
		assertThat(other).as("'%s' while '%s' is held", pair.other(), pair.one()).isPresent();
		assertThat(otherProcess.lock(lockConfig(pair.one()))).as("'%s' itself", pair.one()).isEmpty();
		assertThat(otherProcess.lock(lockConfig(pair.other()))).as("'%s' itself", pair.other()).isEmpty();
		one.get().unlock();
		other.get().unlock();
	}

	@ParameterizedTest(name = "{0}")
	@FieldSource("prefixedPairs")
	void namesUnderPrefixesThatMeetAreLockedAtOnce(PrefixedPair pair) {
		Optional<SimpleLock> one = provider(pair.onePrefix()).lock(lockConfig(pair.one()));
		assertThat(one).as("'%s' under '%s'", pair.one(), pair.onePrefix()).isPresent();
		Optional<SimpleLock> other = provider(pair.otherPrefix()).lock(lockConfig(pair.other()));
		assertThat(other)
			.as("'%s' under '%s' while '%s' under '%s' is held", pair.other(), pair.otherPrefix(), pair.one(),
					pair.onePrefix())
			.isPresent();
		assertThat(provider(pair.onePrefix()).lock(lockConfig(pair.one()))).as("'%s' itself", pair.one()).isEmpty();
		one.get().unlock();
		other.get().unlock();
	}

	@Test
	void namesLongerThanTheLongestKeyAreRefusedForTheirLength() {
		// failed before the fix: the refusal blamed the TTL, "lockAtMostFor 30s of
		// ShedLock
		// lock '...' is not a TTL the LockRegistry accepts (Lock key is 10000 characters
		// long; the limit is 1024: ...); raise lockAtMostFor ..."
		RedlockLockProvider provider = provider("redlock:");
		Pair tooLong = DistinctKeys.tooLong();
		for (String name : List.of(tooLong.one(), tooLong.other())) {
			assertThatIllegalArgumentException().isThrownBy(() -> provider.lock(lockConfig(name)))
				.withMessageContaining("10000 characters long; the limit is " + RedlockRegistry.MAX_KEY_LENGTH)
				.withMessageContaining("shorten or fix the name")
				.withMessageNotContaining("not a TTL");
		}
	}

	private RedlockLockProvider provider(String keyPrefix) {
		RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(false)
			.nodeTimeout(DistinctKeys.NODE_TIMEOUT)
			.connectTimeout(DistinctKeys.CONNECT_TIMEOUT)
			.keyPrefix(keyPrefix)
			.build()
			.start();
		this.registries.add(registry);
		return new RedlockLockProvider(registry);
	}

	private static LockConfiguration lockConfig(String name) {
		return new LockConfiguration(ClockProvider.now(), name, Duration.ofSeconds(30), Duration.ZERO);
	}

}
