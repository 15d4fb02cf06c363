package io.github.redlock.engine;

import io.github.redlock.LockRegistry;
import io.github.redlock.contract.LockViewContract;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@link LockViewContract} for the lock {@link RedlockRegistry#obtain} hands out,
 * against three real redis-server nodes. A second registry over the same nodes stands for
 * another process. Registries use the defaults a user gets.
 */
class LockViewContractIntegrationTests extends LockViewContract {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private static RedlockRegistry registry;

	private static RedlockRegistry otherProcess;

	@BeforeAll
	static void start() {
		registry = TestRegistries.builder(fleet).build().start();
		otherProcess = TestRegistries.builder(fleet).build().start();
	}

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
		return registry.parts().waiting().waiters();
	}

}
