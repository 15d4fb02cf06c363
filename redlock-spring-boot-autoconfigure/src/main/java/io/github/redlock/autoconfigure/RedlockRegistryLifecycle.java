package io.github.redlock.autoconfigure;

import io.github.redlock.engine.RedlockRegistry;

import org.springframework.context.SmartLifecycle;

/**
 * Connects the registry to its nodes when the application context starts, so that bean
 * creation makes no network call, and closes its connections when the context stops, as
 * Spring Boot's Lettuce connection factory does: on
 * {@code ConfigurableApplicationContext.stop()} and before a CRaC checkpoint. A start
 * after that connects again, through the same {@link RedlockRegistry} bean, which refuses
 * acquisitions meanwhile.
 * <p>
 * Its phase is {@value #PHASE}, that of Spring Data Redis's Lettuce connection factory:
 * it starts before, and stops after, the lifecycle beans that may take locks at the
 * default phase (task schedulers, message listener containers) and the web server, whose
 * graceful shutdown lets requests under way finish, with their locks, before the registry
 * stops. A lease still held at the stop is released on the nodes; one that work still
 * runs under is marked lost and left to expire within its TTL (see
 * {@link RedlockRegistry#stop()}). The registry itself is closed when its bean is
 * destroyed: held leases are released, then connections closed, before the shared client
 * resources shut down.
 *
 * @author redlock contributors
 */
class RedlockRegistryLifecycle implements SmartLifecycle {

	/** The phase: started early and stopped late, as a connection factory is. */
	static final int PHASE = 0;

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
		this.registry.stop();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
