package io.github.redlock.test;

import java.util.ArrayList;
import java.util.List;

import io.github.redlock.LockRegistry;
import io.github.redlock.contract.LockKindsContract;
import io.github.redlock.engine.LockObserver;
import org.junit.jupiter.api.AfterEach;

import static org.junit.jupiter.api.Assumptions.abort;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The {@link LockKindsContract} that the quorum registry passes, for the in-memory
 * registry. Skipped, as they do not apply: the cases with an observer (observers are a
 * quorum registry's option, and the in-memory registry has none) and the cases of a
 * stopped registry (it has no connections to stop and start again; closing it, which the
 * contract also covers, is what it has).
 */
class InMemoryLockKindsContractTests extends LockKindsContract {

	private final InMemoryLockRegistry locks = new InMemoryLockRegistry();

	private final List<InMemoryLockRegistry> made = new ArrayList<>();

	@AfterEach
	void closeRegistries() {
		this.made.forEach(InMemoryLockRegistry::close);
		this.locks.close();
	}

	@Override
	protected LockRegistry registry(LockObserver observer) {
		assumeTrue(observer == null, "the in-memory registry has no observers");
		InMemoryLockRegistry registry = this.locks.anotherProcess();
		this.made.add(registry);
		return registry;
	}

	@Override
	protected void stop(LockRegistry registry) {
		abort("the in-memory registry cannot be stopped and started again: it has no connections");
	}

	@Override
	protected void close(LockRegistry registry) {
		((InMemoryLockRegistry) registry).close();
	}

}
