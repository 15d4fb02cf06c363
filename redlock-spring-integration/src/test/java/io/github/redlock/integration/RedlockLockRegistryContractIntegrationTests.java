package io.github.redlock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redlock.LockRegistry;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Spring Integration's lock registry contract ({@link RedlockLockRegistryContract}) over
 * quorum registries on three real redis-server nodes, with the default settings and the
 * restart guard off (the test starts the nodes).
 */
class RedlockLockRegistryContractIntegrationTests extends RedlockLockRegistryContract {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final List<RedlockRegistry> redlocks = new ArrayList<>();

	@AfterEach
	void close() {
		this.redlocks.forEach(RedlockRegistry::close);
	}

	@Override
	protected LockRegistry newRedlock(String keyPrefix) {
		return started(RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false).keyPrefix(keyPrefix));
	}

	@Override
	protected LockRegistry newRedlockGranting(Duration ttl) {
		return started(RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false).maxTtl(ttl));
	}

	private RedlockRegistry started(RedlockRegistry.Builder builder) {
		RedlockRegistry redlock = builder.build().start();
		this.redlocks.add(redlock);
		return redlock;
	}

	@Override
	protected boolean isHeldAnywhere(String key) {
		for (RedisNode node : fleet.fleet().nodes()) {
			if (node.isRunning() && ((Long) node.call("EXISTS", "redlock:lock:{" + key + "}")) > 0) {
				return true;
			}
		}
		return false;
	}

}
