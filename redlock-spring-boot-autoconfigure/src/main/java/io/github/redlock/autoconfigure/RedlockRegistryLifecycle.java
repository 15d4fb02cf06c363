package io.github.redlock.autoconfigure;

import io.github.redlock.engine.RedlockRegistry;

import org.springframework.context.SmartLifecycle;

/**
 * Connects the registry to its nodes when the application context starts, so that bean
 * creation makes no network call. The registry itself is closed when its bean is
 * destroyed: held leases are released, then connections closed, before the shared client
 * resources shut down.
 *
 * @author redlock contributors
 */
class RedlockRegistryLifecycle implements SmartLifecycle {

	private final RedlockRegistry registry;

	private volatile boolean running;

	RedlockRegistryLifecycle(RedlockRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void start() {
		this.registry.start();
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
