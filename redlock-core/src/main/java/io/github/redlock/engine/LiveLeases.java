package io.github.redlock.engine;

import java.util.ArrayList;
import java.util.List;
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
 * The leases a registry holds and the acquisitions it runs now, and whether it is closed.
 * Closing fails every pending acquisition at once and releases every lease; a lease
 * granted after that is released and handed to nobody.
 *
 * @author redlock contributors
 */
final class LiveLeases {

	private static final Log logger = LogFactory.getLog(LiveLeases.class);

	private final Set<RedlockLease> leases = ConcurrentHashMap.newKeySet();

	private final Set<Acquisition> acquisitions = ConcurrentHashMap.newKeySet();

	private final Set<LeaseAcquisition> modeAcquisitions = ConcurrentHashMap.newKeySet();

	private final AtomicBoolean closed = new AtomicBoolean();

	/**
	 * Records a granted lease, unless the registry closed, in which case it is released.
	 * Adding before reading the flag, as close sets the flag before reading the set,
	 * means that a lease added during a close is seen by one of them at least, without a
	 * lock on the acquire path.
	 * @return whether the lease may be handed to its caller
	 */
	boolean add(RedlockLease lease) {
		this.leases.add(lease);
		if (this.closed.get()) {
			this.leases.remove(lease);
			lease.releaseAsync(); // released by close too, perhaps: releasing is
									// idempotent
			return false;
		}
		return true;
	}

	void remove(RedlockLease lease) {
		this.leases.remove(lease);
	}

	/**
	 * Records an acquisition until it completes, so that closing can fail it.
	 * @return whether it may start: {@code false} once the registry closed
	 */
	boolean add(Acquisition acquisition) {
		this.acquisitions.add(acquisition);
		if (this.closed.get()) {
			this.acquisitions.remove(acquisition);
			return false;
		}
		return true;
	}

	void remove(Acquisition acquisition) {
		this.acquisitions.remove(acquisition);
	}

	/**
	 * Records a read, write or permit acquisition until it completes, as
	 * {@link #add(Acquisition)} does.
	 * @return whether it may start: {@code false} once the registry closed
	 */
	boolean add(LeaseAcquisition acquisition) {
		this.modeAcquisitions.add(acquisition);
		if (this.closed.get()) {
			this.modeAcquisitions.remove(acquisition);
			return false;
		}
		return true;
	}

	void remove(LeaseAcquisition acquisition) {
		this.modeAcquisitions.remove(acquisition);
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
	 * Marks the registry closed, fails every pending acquisition, and releases every held
	 * lease, waiting at most {@code boundNanos} for the nodes.
	 * @return {@code false} if it was closed already
	 */
	boolean close(long boundNanos) {
		if (!this.closed.compareAndSet(false, true)) {
			return false;
		}
		RedlockLease[] held = this.leases.toArray(RedlockLease[]::new);
		Acquisition[] pending = this.acquisitions.toArray(Acquisition[]::new);
		for (Acquisition acquisition : pending) {
			acquisition.abandonOnClose();
		}
		for (LeaseAcquisition acquisition : this.modeAcquisitions.toArray(LeaseAcquisition[]::new)) {
			acquisition.abandonOnClose();
		}
		List<CompletableFuture<?>> releases = new ArrayList<>();
		int left = 0;
		for (RedlockLease lease : held) {
			if (lease.isKeptAlive()) {
				// work still runs under it: deleting the lock would let another instance
				// start the same work now; it can no longer be extended either, so the
				// work is told and the lock expires on the nodes, as after a crash
				lease.markLost("the LockRegistry closed while work still ran under it; the lock was left to "
						+ "expire on the nodes within its TTL rather than deleted under the running work");
				left++;
			}
			else {
				releases.add(lease.releaseAsync());
			}
		}
		if (!releases.isEmpty() || left > 0) {
			logger.info("The LockRegistry closes: releasing " + releases.size() + " held lock(s)"
					+ ((left > 0) ? ", leaving " + left + " with work still running under them to expire" : ""));
		}
		try {
			CompletableFuture.allOf(releases.toArray(CompletableFuture<?>[]::new))
				.get(boundNanos, TimeUnit.NANOSECONDS);
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
