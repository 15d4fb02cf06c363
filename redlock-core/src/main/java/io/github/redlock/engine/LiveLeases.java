package io.github.redlock.engine;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The leases a registry holds now, and whether it is closed: closing releases them all,
 * and a lease that is granted after the close is released at once.
 *
 * @author redlock contributors
 */
final class LiveLeases {

	private static final Log logger = LogFactory.getLog(LiveLeases.class);

	private final Set<RedlockLease> leases = ConcurrentHashMap.newKeySet();

	private final AtomicBoolean closed = new AtomicBoolean();

	/**
	 * Records a granted lease; releases it at once if the registry closed meanwhile.
	 */
	RedlockLease add(RedlockLease lease) {
		this.leases.add(lease);
		if (this.closed.get()) {
			lease.releaseAsync();
		}
		return lease;
	}

	void remove(RedlockLease lease) {
		this.leases.remove(lease);
	}

	int size() {
		return this.leases.size();
	}

	boolean isClosed() {
		return this.closed.get();
	}

	/**
	 * Refuses a new acquisition once the registry is closed.
	 * @throws IllegalStateException if it is
	 */
	void checkOpen() {
		if (this.closed.get()) {
			throw new IllegalStateException("This LockRegistry is closed: no lock can be acquired through it");
		}
	}

	/**
	 * Marks the registry closed and releases every held lease, waiting at most
	 * {@code boundNanos}.
	 * @return {@code false} if it was closed already
	 */
	boolean close(long boundNanos) {
		if (!this.closed.compareAndSet(false, true)) {
			return false;
		}
		RedlockLease[] held = this.leases.toArray(RedlockLease[]::new);
		if (held.length > 0) {
			logger.info("Releasing " + held.length + " held lock(s) as the LockRegistry closes");
		}
		CompletableFuture<?>[] releases = new CompletableFuture<?>[held.length];
		for (int i = 0; i < held.length; i++) {
			releases[i] = held[i].releaseAsync();
		}
		try {
			CompletableFuture.allOf(releases).get(boundNanos, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.debug("Not every lease was released on close", ex);
		}
		return true;
	}

}
