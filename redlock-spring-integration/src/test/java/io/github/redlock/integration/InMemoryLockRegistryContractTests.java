package io.github.redlock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.redlock.LockRegistry;
import io.github.redlock.test.InMemoryLockRegistry;
import org.junit.jupiter.api.AfterEach;

/**
 * Spring Integration's lock registry contract ({@link RedlockLockRegistryContract}) over
 * the in-memory registry: what a unit test of Spring Integration code gets with
 * {@code new RedlockLockRegistry(new InMemoryLockRegistry())}. A key prefix stands for a
 * set of locks of its own: registries with one prefix share their locks.
 */
class InMemoryLockRegistryContractTests extends RedlockLockRegistryContract {

	private final Map<String, InMemoryLockRegistry> byPrefix = new HashMap<>();

	private final List<InMemoryLockRegistry> made = new ArrayList<>();

	@AfterEach
	void close() {
		this.made.forEach(InMemoryLockRegistry::close);
	}

	@Override
	protected LockRegistry newRedlock(String keyPrefix) {
		InMemoryLockRegistry first = this.byPrefix.computeIfAbsent(keyPrefix, (prefix) -> newRegistry());
		InMemoryLockRegistry registry = first.anotherProcess();
		this.made.add(registry);
		return registry;
	}

	@Override
	protected LockRegistry newRedlockGranting(Duration ttl) {
		return newRedlock("redlock:"); // no maximum TTL
	}

	@Override
	protected boolean isHeldAnywhere(String key) {
		return newRedlock("redlock:").inspect(key).isHeldAnywhere();
	}

	private InMemoryLockRegistry newRegistry() {
		InMemoryLockRegistry registry = new InMemoryLockRegistry();
		this.made.add(registry);
		return registry;
	}

}
