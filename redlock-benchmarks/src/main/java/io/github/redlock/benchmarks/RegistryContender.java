package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redlock.Lease;
import io.github.redlock.engine.NodeStatus;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.engine.node.KeyLayout;

/**
 * This project's {@link RedlockRegistry} with its default waiting, through the blocking
 * {@code acquire}, its {@code maxTtl} the benchmark's TTL. With the restart guard on
 * (what users run), fresh nodes count toward no quorum until the guard time has passed
 * since their marker key was created: {@link #awaitUsable(Duration)} waits that out
 * before anything is measured.
 */
final class RegistryContender implements Contender {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final RedlockRegistry registry;

	private final Duration ttl;

	private final String name;

	RegistryContender(List<String> uris, Duration ttl, boolean restartGuard) {
		this(uris, ttl, restartGuard, "this registry");
	}

	RegistryContender(List<String> uris, Duration ttl, boolean restartGuard, String name) {
		this.name = name;
		this.registry = RedlockRegistry.builder()
			.nodes(uris)
			.restartGuard(restartGuard)
			.maxTtl(ttl)
			.defaultTtl(ttl)
			.build()
			.start();
		this.ttl = ttl;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public Held acquire(String key) throws InterruptedException {
		Lease lease = this.registry.acquire(key, this.ttl, WAIT);
		return lease::release;
	}

	/**
	 * Waits until every node counts toward quorums, as the registry's own checks say
	 * (with the restart guard on: connected, checked, and out of the guard time).
	 * @param timeout how long to wait at most
	 * @return what kept the nodes out while waiting (the first reason seen, or
	 * {@code null} when none did), and how long the wait took
	 * @throws IllegalStateException when they did not all count in time
	 */
	Usable awaitUsable(Duration timeout) {
		return awaitUsable(this.registry, timeout);
	}

	/**
	 * Waits until every node of {@code registry} counts toward quorums, as
	 * {@link #awaitUsable(Duration)} does.
	 */
	static Usable awaitUsable(RedlockRegistry registry, Duration timeout) {
		long start = System.nanoTime();
		long deadline = start + timeout.toNanos();
		String reason = null;
		while (true) {
			List<NodeStatus> statuses = registry.checkNodes();
			if (statuses.stream().allMatch(NodeStatus::usable)) {
				return new Usable(Duration.ofNanos(System.nanoTime() - start), reason);
			}
			if (reason == null || reason.contains("checking whether it restarted")) {
				reason = statuses.stream()
					.filter((status) -> !status.usable())
					.map(NodeStatus::problem)
					.findFirst()
					.orElse(null);
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The registry's nodes did not all count toward quorums within "
						+ timeout.toSeconds() + "s: " + statuses);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
		}
	}

	/**
	 * Returns the name the nodes keep {@code key}'s lock value under.
	 */
	String lockKey(String key) {
		return new KeyLayout(this.registry.settings().keyPrefix()).lockKey(key);
	}

	long fencingRounds() {
		return this.registry.fencingRounds();
	}

	long acquisitions() {
		return this.registry.acquisitions();
	}

	@Override
	public void close() {
		this.registry.close();
	}

	/**
	 * The end of {@link #awaitUsable(Duration)}.
	 *
	 * @param waited how long it took
	 * @param reason what the registry said kept a node out, or {@code null}
	 */
	record Usable(Duration waited, String reason) {

	}

}
