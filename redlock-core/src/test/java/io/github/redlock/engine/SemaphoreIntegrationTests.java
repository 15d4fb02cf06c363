package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockSemaphore;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.kinds.PermitSemaphore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Lease semaphores against five real nodes: the bound, each permit a lease, dead holders
 * freed at their TTL, node faults, and a changed permit count. See
 * {@link PermitSemaphore} for the algorithm.
 */
class SemaphoreIntegrationTests {

	private static final Duration TTL = Duration.ofSeconds(10);

	/**
	 * The wait time of acquisitions that nothing contends: a few seconds, so that a
	 * loaded machine that is slow to connect or to restart a node does not fail them.
	 */
	private static final Duration SETTLE = Duration.ofSeconds(5);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	private RedlockRegistry registry() {
		RedlockRegistry registry = TestRegistries.builder(fleet).nodeTimeout(Duration.ofMillis(250)).build().start();
		this.registries.add(registry);
		return registry;
	}

	@Test
	void neverMoreHoldersThanPermitsAndEachPermitIsALease() throws Exception {
		LockSemaphore one = registry().semaphore("sem:bound", 2);
		LockSemaphore two = registry().semaphore("sem:bound", 2);
		LockSemaphore three = registry().semaphore("sem:bound", 2);
		assertThat(one.availablePermits()).isEqualTo(2);
		Lease first = one.acquire(TTL, SETTLE);
		Lease second = two.acquire(TTL, Duration.ofSeconds(2));
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(three.tryAcquire(TTL)).isEmpty();
		assertThat(three.availablePermits()).isZero();
		assertThat(first.extend(TTL)).isTrue();
		assertThat(first.remainingValidity()).isPositive();
		first.release();
		assertThat(first.isHeld()).isFalse();
		Lease third = three.acquire(TTL, Duration.ofSeconds(2));
		assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
		assertThat(one.tryAcquire(TTL)).isEmpty();
		second.close();
		third.close();
		assertThat(one.availablePermits()).isEqualTo(2);
	}

	@Test
	void aWaiterGetsThePermitWhenAHolderOfTheSameRegistryReleases() throws Exception {
		RedlockRegistry registry = registry();
		LockSemaphore semaphore = registry.semaphore("sem:wake", 1);
		Lease held = semaphore.acquire(TTL, SETTLE);
		Thread releaser = new Thread(() -> {
			// released once the waiter stands in line, so that the release is what
			// wakes it (a fixed 300 ms sleep assumed it was waiting by then)
			await().atMost(Duration.ofSeconds(10)).until(() -> registry.parts().permitLines.waiters() > 0);
			held.release();
		});
		releaser.start();
		long start = System.nanoTime();
		try (Lease next = semaphore.acquire(TTL, Duration.ofSeconds(5))) {
			System.out
				.println("sem: the waiter got the permit " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
						+ "ms after asking (released once it stood in line)");
			assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		}
		releaser.join();
	}

	@Test
	void aHolderThatStopsExtendingFreesItsPermitAtItsTtl() throws Exception {
		LockSemaphore dead = registry().semaphore("sem:dead", 1);
		LockSemaphore waiter = registry().semaphore("sem:dead", 1);
		Lease abandoned = dead.acquire(Duration.ofSeconds(1), SETTLE);
		long start = System.nanoTime();
		try (Lease next = waiter.acquire(TTL, Duration.ofSeconds(10))) {
			System.out.println("sem: a permit whose 1s holder stopped extending was taken after "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + "ms");
			assertThat(abandoned.isHeld()).isFalse();
			assertThat(next.fencingToken()).isGreaterThan(abandoned.fencingToken());
		}
	}

	@Test
	void permitsAreGrantedWithTwoNodesDownAndLostWhenAQuorumIsGone() throws Exception {
		RedlockRegistry registry = registry();
		LockSemaphore semaphore = registry.semaphore("sem:faults", 2);
		fleet.node(0).kill();
		fleet.node(4).pause();
		try {
			Lease first = semaphore.acquire(Duration.ofSeconds(1), Duration.ofSeconds(3), true);
			Lease second = semaphore.acquire(TTL, Duration.ofSeconds(3));
			assertThat(semaphore.tryAcquire(TTL)).isEmpty();
			AtomicReference<Throwable> lost = new AtomicReference<>();
			first.addListener((lease, cause) -> lost.set(cause));
			fleet.node(1).kill();
			await().atMost(Duration.ofSeconds(10)).until(() -> lost.get() != null);
			assertThat(first.isHeld()).isFalse();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> semaphore.acquire(TTL, Duration.ofMillis(300)))
				.withMessageContaining("3 needed");
			first.release();
			second.release();
		}
		finally {
			fleet.node(4).resume();
		}
	}

	/**
	 * Two holders spread over the nodes: slot 0 on nodes 0 to 2, slot 1 on nodes 2 to 4.
	 * A count per node would grant a third permit on nodes 0, 1 and 3 (each holds one of
	 * two); slots do not.
	 */
	@Test
	void spreadHoldersLeaveNoPermitWhereACountPerNodeWouldGrantOne() throws Exception {
		long expiry = System.currentTimeMillis() + 60_000;
		for (int node : new int[] { 0, 1, 2 }) {
			fleet.node(node).call("HSET", "redlock:permits:{sem:spread}", "0", "someone-else-holder-x:h:1:t");
			fleet.node(node).call("ZADD", "redlock:permit-expiries:{sem:spread}", String.valueOf(expiry), "0");
		}
		for (int node : new int[] { 2, 3, 4 }) {
			fleet.node(node).call("HSET", "redlock:permits:{sem:spread}", "1", "someone-else-holder-y:h:1:t");
			fleet.node(node).call("ZADD", "redlock:permit-expiries:{sem:spread}", String.valueOf(expiry), "1");
		}
		LockSemaphore semaphore = registry().semaphore("sem:spread", 2);
		assertThat(semaphore.availablePermits()).isZero();
		for (int i = 0; i < 10; i++) {
			assertThat(semaphore.tryAcquire(TTL)).isEmpty();
		}
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> semaphore.acquire(TTL, Duration.ofMillis(500)));
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("DEL", "redlock:permits:{sem:spread}", "redlock:permit-expiries:{sem:spread}");
		}
	}

	@Test
	void loweringThePermitCountLetsOldHoldersFinishAndNewCallersWaitBelowTheNewCount() throws Exception {
		RedlockRegistry old = registry();
		RedlockRegistry deployed = registry();
		LockSemaphore three = old.semaphore("sem:change", 3);
		List<Lease> oldHolders = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			oldHolders.add(three.acquire(TTL, Duration.ofSeconds(2)));
		}
		LockSemaphore two = deployed.semaphore("sem:change", 2);
		assertThat(two.tryAcquire(TTL)).isEmpty();
		oldHolders.remove(0).release();
		assertThat(two.tryAcquire(TTL)).as("two of the old count's permits are still held").isEmpty();
		oldHolders.remove(0).release();
		Optional<Lease> granted = Optional.empty();
		for (int i = 0; i < 20 && granted.isEmpty(); i++) {
			granted = two.tryAcquire(TTL); // the free slot may be the one still held
		}
		assertThat(granted).isPresent();
		assertThat(two.tryAcquire(TTL)).isEmpty();
		// raising it: a caller with four permits gets a third and fourth
		LockSemaphore four = deployed.semaphore("sem:change", 4);
		Lease third = four.acquire(TTL, Duration.ofSeconds(2));
		Lease fourth = four.acquire(TTL, Duration.ofSeconds(2));
		assertThat(four.tryAcquire(TTL)).isEmpty();
		third.release();
		fourth.release();
		granted.get().release();
		oldHolders.forEach(Lease::release);
	}

	@Test
	void aRestartedNodeCountsTowardNoQuorumSoNoSecondHolderGetsTheOnlyPermit() throws Exception {
		Duration maxTtl = Duration.ofSeconds(5);
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("SET", "redlock:node", "established:0");
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> fleet.fleet().nodes().stream().allMatch((node) -> uptimeSeconds(node) > 6));
		// another owner's permit on nodes 3 and 4: ours is taken on 0, 1 and 2
		long expiry = System.currentTimeMillis() + 60_000;
		for (int node : new int[] { 3, 4 }) {
			fleet.node(node).call("HSET", "redlock:permits:{sem:guard}", "0", "someone-else-holder-x:h:1:t");
			fleet.node(node).call("ZADD", "redlock:permit-expiries:{sem:guard}", String.valueOf(expiry), "0");
		}
		Lease held = guarded(maxTtl, true).semaphore("sem:guard", 1).acquire(maxTtl, Duration.ofSeconds(2));
		fleet.node(2).restart(false);
		for (int node : new int[] { 3, 4 }) {
			fleet.node(node).call("DEL", "redlock:permits:{sem:guard}", "redlock:permit-expiries:{sem:guard}");
		}
		assertThat(guarded(maxTtl, true).semaphore("sem:guard", 1).tryAcquire(maxTtl)).isEmpty();
		// without the guard, a second holder of the one permit gets in: what the guard is
		// for
		Optional<Lease> second = guarded(maxTtl, false).semaphore("sem:guard", 1).tryAcquire(maxTtl);
		System.out.println("sem: without the restart guard a second holder of 1 permit got in: " + second.isPresent()
				+ ", while the first was held: " + held.isHeld());
		assertThat(second).isPresent();
		second.get().release();
		held.release();
	}

	private static long uptimeSeconds(RedisNode node) {
		String info = (String) node.call("INFO", "server");
		int start = info.indexOf("uptime_in_seconds:") + "uptime_in_seconds:".length();
		return Long.parseLong(info.substring(start, info.indexOf('\r', start)));
	}

	private RedlockRegistry guarded(Duration maxTtl, boolean guard) {
		RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.nodeTimeout(Duration.ofMillis(250))
			.maxTtl(maxTtl)
			.defaultTtl(maxTtl)
			.restartGuard(guard)
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	@Test
	void badPermitCountsAreRefusedWithTheFix() {
		RedlockRegistry registry = registry();
		assertThatIllegalArgumentException().isThrownBy(() -> registry.semaphore("sem:bad", 0))
			.withMessageContaining("permits must be from 1 to 16383, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.semaphore("", 1))
			.withMessageContaining("must not be empty");
	}

}
