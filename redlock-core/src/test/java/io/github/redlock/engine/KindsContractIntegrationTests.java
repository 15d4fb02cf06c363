package io.github.redlock.engine;

import java.time.Duration;

import io.github.redlock.LockRegistry;
import io.github.redlock.contract.LockKindsContract;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@link LockKindsContract} for the quorum registry, against three real redis-server
 * nodes.
 */
class KindsContractIntegrationTests extends LockKindsContract {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	@Override
	protected LockRegistry registry(LockObserver observer) {
		RedlockRegistry.Builder builder = TestRegistries.builder(fleet).retryDelay(Duration.ofMillis(50));
		if (observer != null) {
			builder.observer(observer);
		}
		return this.registries.start(builder);
	}

	@Override
	protected void stop(LockRegistry registry) {
		((RedlockRegistry) registry).stop();
	}

	@Override
	protected void close(LockRegistry registry) {
		((RedlockRegistry) registry).close();
	}

}
