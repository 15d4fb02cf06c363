package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.List;

import io.github.redlock.Lease;
import io.github.redlock.engine.RedlockRegistry;

/**
 * This project's {@link RedlockRegistry} with its default waiting, restart guard off
 * (fresh nodes), through the blocking {@code acquire}.
 */
final class RegistryContender implements Contender {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final RedlockRegistry registry;

	private final Duration ttl;

	RegistryContender(List<String> uris, Duration ttl) {
		this.registry = RedlockRegistry.builder().nodes(uris).restartGuard(false).build().start();
		this.ttl = ttl;
	}

	@Override
	public String name() {
		return "this registry";
	}

	@Override
	public Held acquire(String key) throws InterruptedException {
		Lease lease = this.registry.acquire(key, this.ttl, WAIT);
		return lease::release;
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

}
