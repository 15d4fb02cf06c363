package io.github.redlock.test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockSemaphore;

/**
 * A semaphore of an {@link InMemoryLockRegistry}: each permit a lease of its own, not
 * reentrant, apart from the locks of the same key but for their fencing counter.
 *
 * @author redlock contributors
 */
final class MemorySemaphore implements LockSemaphore {

	private final InMemoryLockRegistry registry;

	private final String key;

	private final int permits;

	MemorySemaphore(InMemoryLockRegistry registry, String key, int permits) {
		this.registry = registry;
		this.key = key;
		this.permits = permits;
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public int permits() {
		return this.permits;
	}

	@Override
	public Lease acquire(Duration ttl, Duration waitTime) {
		return acquire(ttl, waitTime, false);
	}

	@Override
	public Lease acquire(Duration ttl, Duration waitTime, boolean autoExtend) {
		return this.registry.permit(this.key, this.permits, ttl, waitTime, autoExtend);
	}

	@Override
	public CompletableFuture<Lease> acquireAsync(Duration ttl, Duration waitTime) {
		return acquireAsync(ttl, waitTime, false);
	}

	@Override
	public CompletableFuture<Lease> acquireAsync(Duration ttl, Duration waitTime, boolean autoExtend) {
		return this.registry.async(MemoryStore.Kind.PERMIT, this.key, ttl, waitTime, autoExtend, this.permits);
	}

	@Override
	public Optional<Lease> tryAcquire(Duration ttl) {
		try {
			return Optional.of(acquire(ttl, Duration.ZERO));
		}
		catch (LockAcquisitionException ex) {
			if (ex.getReason() == LockAcquisitionException.Reason.INTERRUPTED) {
				throw ex;
			}
			return Optional.empty();
		}
	}

	@Override
	public int availablePermits() {
		return Math.max(0, this.permits - this.registry.permitsHeld(this.key));
	}

}
