package io.github.redlock.test;

import io.github.redlock.LockRegistry;
import io.github.redlock.contract.LockViewContract;
import org.junit.jupiter.api.AfterAll;

/**
 * The {@link LockViewContract} that the quorum registry's lock passes, for the in-memory
 * registry's lock.
 */
class InMemoryLockViewContractTests extends LockViewContract {

	private static final InMemoryLockRegistry registry = new InMemoryLockRegistry();

	private static final InMemoryLockRegistry otherProcess = registry.anotherProcess();

	@AfterAll
	static void close() {
		registry.close();
		otherProcess.close();
	}

	@Override
	protected LockRegistry registry() {
		return registry;
	}

	@Override
	protected LockRegistry otherProcess() {
		return otherProcess;
	}

	@Override
	protected int waiters() {
		return registry.waiters();
	}

}
