package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockSemaphore;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.waiting.WaitingLine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Release hints for semaphores (issue 28: permits keep every promise the mutex keeps): a
 * waiter of one registry is woken when a permit is released in another, as
 * WaitingIntegrationTests shows for the mutex. Two registries stand for two processes:
 * they share nothing but the nodes. The waiter polls only every 30 seconds, and the
 * holder's permits live 50 seconds, so a waiter that gets a permit within 15 seconds of
 * the release was woken.
 * <p>
 * Before the change a permit released elsewhere was found only by polling, and all three
 * failed: aWaiterOfAnotherRegistryGetsAPermitRightAfterTheReleaseThroughAHint and
 * theLeastPrivilegeWithPubSubOnTheLockChannelsGetsPermitHints with
 * "java.util.concurrent.TimeoutException" on the waiter's 15 s get,
 * aWaiterSubscribesOnEveryNodeOnlyWhileItWaits with "ConditionTimeoutException: Condition
 * ... was not fulfilled within 20 seconds" (no subscriber on the permit channel).
 */
class SemaphoreHintsIntegrationTests {

	private static final Duration SLOW_POLL = Duration.ofSeconds(30);

	private static final Duration HELD_TTL = Duration.ofSeconds(50);

	private static final Duration TTL = Duration.ofSeconds(10);

	private static final Duration WAIT = Duration.ofSeconds(60);

	/** Well within the poll: only a wake-up gets the permit this soon. */
	private static final long WOKEN_WITHIN_SECONDS = 15;

	/** As WaitingIntegrationTests: a woken waiter's one attempt must reach a quorum. */
	private static final Duration NODE_TIMEOUT = Duration.ofMillis(500);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final List<RedlockRegistry> registries = new ArrayList<>();

	@AfterEach
	void close() {
		this.registries.forEach(RedlockRegistry::close);
	}

	@Test
	void aWaiterOfAnotherRegistryGetsAPermitRightAfterTheReleaseThroughAHint() throws Exception {
		RedlockRegistry holder = registry();
		RedlockRegistry waiting = registry();
		LockSemaphore held = holder.semaphore("sem-hint", 2);
		Lease first = held.acquire(HELD_TTL, Duration.ofSeconds(5));
		Lease second = held.acquire(HELD_TTL, Duration.ofSeconds(5));
		CompletableFuture<Lease> waiter = waiting.semaphore("sem-hint", 2).acquireAsync(TTL, WAIT);
		awaitSleeping(waiting, "sem-hint");
		long start = System.nanoTime();
		second.release();
		Lease next = waiter.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS);
		System.out.println("Permit granted " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
				+ " ms after the release in another registry (poll: " + SLOW_POLL.toMillis() + " ms)");
		assertThat(next.fencingToken()).isGreaterThan(second.fencingToken());
		next.release();
		first.release();
	}

	@Test
	void aWaiterSubscribesOnEveryNodeOnlyWhileItWaits() throws Exception {
		RedlockRegistry holder = registry();
		RedlockRegistry waiting = registry();
		String channel = "redlock:lock:permits:{sem-subscribed}";
		LockSemaphore semaphore = holder.semaphore("sem-subscribed", 1);
		Lease held = semaphore.acquire(HELD_TTL, Duration.ofSeconds(5));
		assertThat(subscribers(channel)).isZero();
		CompletableFuture<Lease> waiter = waiting.semaphore("sem-subscribed", 1).acquireAsync(TTL, WAIT);
		await().atMost(Duration.ofSeconds(20)).until(() -> subscribers(channel) == 3);
		// the holder's registry, which waits for nothing, subscribes to nothing
		assertThat(holder.parts().hints.subscriptions()).isZero();
		held.release();
		waiter.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS).release();
		// unsubscribed a second after the waiter stopped waiting
		await().atMost(Duration.ofSeconds(20)).until(() -> subscribers(channel) == 0);
		assertThat(waiting.parts().hints.subscriptions()).isZero();
	}

	/**
	 * A lock whose key is {@code permits:<key>} and the semaphore of {@code <key>} have
	 * channels of their own: each line subscribes to its own, keeps it only while it
	 * waits, and is woken by its own releases.
	 */
	@Test
	void aLockAndASemaphoreOfLookalikeKeysHaveChannelsOfTheirOwn() throws Exception {
		RedlockRegistry holder = registry();
		RedlockRegistry waiting = registry();
		String permitChannel = "redlock:lock:permits:{shared}";
		String lockChannel = "redlock:lock:{permits:shared}";
		Lease permit = holder.semaphore("shared", 1).acquire(HELD_TTL, Duration.ofSeconds(5));
		Lease lock = holder.acquire("permits:shared", HELD_TTL, Duration.ofSeconds(5));
		CompletableFuture<Lease> givenUp = waiting.semaphore("shared", 1).acquireAsync(TTL, WAIT);
		CompletableFuture<Lease> lockWaiter = waiting.acquireAsync("permits:shared", TTL, WAIT);
		await().atMost(Duration.ofSeconds(20))
			.until(() -> subscribers(permitChannel) == 3 && subscribers(lockChannel) == 3);
		awaitSleeping(waiting, "shared");
		givenUp.cancel(false);
		// the semaphore's channel goes after its linger; the lock's stays for its waiter
		await().atMost(Duration.ofSeconds(20)).until(() -> subscribers(permitChannel) == 0);
		assertThat(subscribers(lockChannel)).as("subscribers while the lock's waiter waits").isEqualTo(3);
		lock.release();
		lockWaiter.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS).release();
		CompletableFuture<Lease> permitWaiter = waiting.semaphore("shared", 1).acquireAsync(TTL, WAIT);
		awaitSleeping(waiting, "shared");
		permit.release();
		permitWaiter.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS).release();
		await().atMost(Duration.ofSeconds(20))
			.until(() -> subscribers(permitChannel) == 0 && subscribers(lockChannel) == 0);
	}

	@Test
	void theLeastPrivilegeWithPubSubOnTheLockChannelsGetsPermitHints() throws Exception {
		// docs/production.md's rules: the exclusive lock's with publish/subscribe on the
		// lock channels, and those of read-write locks and semaphores
		List<String> rules = new ArrayList<>(
				List.of("~redlock:*", "resetchannels", "&redlock:lock:*", "+eval", "+evalsha", "+get", "+set", "+incr",
						"+pexpire", "+pttl", "+del", "+time", "+info", "+publish", "+subscribe", "+unsubscribe"));
		rules.addAll(List.of(Script.SHARED_LOCK_RULES.split(" ")));
		RedlockRegistry holder = registryAs("least-permit-hints", rules);
		RedlockRegistry waiting = registryAs("least-permit-hints", rules);
		Lease held = holder.semaphore("acl-permit-hints", 1).acquire(HELD_TTL, Duration.ofSeconds(5));
		CompletableFuture<Lease> waiter = waiting.semaphore("acl-permit-hints", 1).acquireAsync(TTL, WAIT);
		awaitSleeping(waiting, "acl-permit-hints");
		held.release();
		waiter.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS).release();
	}

	private RedlockRegistry registry() {
		RedlockRegistry registry = TestRegistries.builder(fleet)
			.nodeTimeout(NODE_TIMEOUT)
			.retryDelay(SLOW_POLL)
			.retryJitter(Duration.ZERO)
			.releaseHints(true)
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	private RedlockRegistry registryAs(String user, List<String> rules) {
		RedlockRegistry registry = TestRegistries.builder(NodeStats.aclUser(fleet.fleet().nodes(), user, rules))
			.nodeTimeout(NODE_TIMEOUT)
			.retryDelay(SLOW_POLL)
			.retryJitter(Duration.ZERO)
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	/**
	 * Waits until the registry's one waiter for the semaphore's key had its first attempt
	 * refused and sleeps until its poll or a wake-up, and then a second more, for the
	 * subscriptions that its sleep asks for (a release before they are answered would
	 * still wake it: the waiter tries once more when they are).
	 */
	private static void awaitSleeping(RedlockRegistry registry, String key) throws InterruptedException {
		await().atMost(Duration.ofSeconds(20))
			.until(() -> WaitingLine.of(registry.parts().permitLines, key).waitersAre(WaitingLine.Phase.SLEEPING));
		Thread.sleep(1000);
	}

	private static long subscribers(String channel) {
		return NodeStats.subscribers(fleet.fleet().nodes(), channel);
	}

}
