package io.github.redlock.engine.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redlock.LockKeys;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The leases a registry holds and the acquisitions it runs now, and whether it is stopped
 * or closed. Stopping or closing fails every pending acquisition at once and releases
 * every lease; a lease granted after that is released and handed to nobody. A stopped
 * registry takes acquisitions again once resumed; a closed one never.
 *
 * @author redlock contributors
 */
public final class LiveLeases {

	private static final Log logger = LogFactory.getLog(LiveLeases.class);

	private final Set<RedlockLease> leases = ConcurrentHashMap.newKeySet();

	private final Set<Pending> acquisitions = ConcurrentHashMap.newKeySet();

	private final AtomicBoolean closed = new AtomicBoolean();

	/** Whether the registry is stopped: set and cleared by its lifecycle alone. */
	private volatile boolean stopped;

	/**
	 * Records a granted lease, unless the registry closed, in which case it is released.
	 * Adding before reading the flag, as close sets the flag before reading the set,
	 * means that a lease added during a close is seen by one of them at least, without a
	 * lock on the acquire path.
	 * @return whether the lease may be handed to its caller
	 */
	public boolean add(RedlockLease lease) {
		this.leases.add(lease);
		if (!isRunning()) {
			this.leases.remove(lease);
			lease.releaseAsync(); // released by close too, perhaps: releasing is
									// idempotent
			return false;
		}
		return true;
	}

	public void remove(RedlockLease lease) {
		this.leases.remove(lease);
	}

	/**
	 * Records an acquisition until it completes, so that closing can fail it.
	 * @return whether it may start: {@code false} once the registry closed
	 */
	public boolean add(Pending acquisition) {
		this.acquisitions.add(acquisition);
		if (!isRunning()) {
			this.acquisitions.remove(acquisition);
			return false;
		}
		return true;
	}

	public void remove(Pending acquisition) {
		this.acquisitions.remove(acquisition);
	}

	/**
	 * Takes the leases held now on {@code key}, of any kind (an exclusive lock, read
	 * locks, permits), from their holders: each is declared lost first, so that its
	 * holder is told as of any loss, then deleted on every node; waits at most
	 * {@code boundNanos} for the deletions.
	 * @return how many leases were held on the key
	 */
	public int revoke(String key, String reason, long boundNanos) {
		List<CompletableFuture<?>> deletions = new ArrayList<>();
		for (RedlockLease lease : this.leases) {
			if (lease.key().equals(key)) {
				lease.markLost(reason);
				deletions.add(lease.releaseAsync());
			}
		}
		await(deletions, boundNanos, "revoking lock '" + LockKeys.printable(key) + "'");
		return deletions.size();
	}

	public int size() {
		return this.leases.size();
	}

	public boolean isClosed() {
		return this.closed.get();
	}

	public boolean isStopped() {
		return this.stopped;
	}

	private boolean isRunning() {
		return !this.stopped && !this.closed.get();
	}

	/**
	 * Refuses a question to the nodes once the registry is closed.
	 * @throws IllegalStateException if it is
	 */
	public void checkOpen() {
		if (this.closed.get()) {
			throw new IllegalStateException("This LockRegistry is closed: no lock can be acquired through it");
		}
	}

	/**
	 * Refuses a new acquisition once the registry is stopped or closed.
	 * @throws IllegalStateException if it is
	 */
	public void checkRunning() {
		checkOpen();
		if (this.stopped) {
			throw new IllegalStateException(stoppedMessage());
		}
	}

	/**
	 * Says why an acquisition was refused or abandoned: the registry stopped, or closed.
	 */
	public String refusal(String key) {
		return this.stopped && !this.closed.get()
				? "The LockRegistry was stopped while acquiring lock '" + key + "': no lock is held; "
						+ "start() it again, as the application context does when it starts again"
				: "The LockRegistry was closed while acquiring lock '" + key
						+ "': no lock is held; acquire through an open registry";
	}

	private static String stoppedMessage() {
		return "This LockRegistry is stopped (its application context was stopped, or a checkpoint taken): no lock"
				+ " can be acquired through it until it is start()ed again, as the context does when it starts again";
	}

	/**
	 * Marks the registry stopped, fails every pending acquisition, and releases every
	 * held lease as {@link #close} does; {@link #resume()} takes acquisitions again.
	 * @return {@code false} if it was stopped or closed already
	 */
	public boolean stop(long boundNanos) {
		if (this.stopped || this.closed.get()) {
			return false;
		}
		this.stopped = true;
		releaseAll("stopped", boundNanos);
		return true;
	}

	/**
	 * Takes acquisitions again after {@link #stop}.
	 */
	public void resume() {
		this.stopped = false;
	}

	/**
	 * Marks the registry closed, fails every pending acquisition, and releases every held
	 * lease, waiting at most {@code boundNanos} for the nodes.
	 * @return {@code false} if it was closed already
	 */
	public boolean close(long boundNanos) {
		if (!this.closed.compareAndSet(false, true)) {
			return false;
		}
		releaseAll("closed", boundNanos);
		return true;
	}

	/**
	 * Fails every pending acquisition and releases every held lease, but those that work
	 * still runs under: these are marked lost and left to expire on the nodes.
	 */
	private void releaseAll(String what, long boundNanos) {
		RedlockLease[] held = this.leases.toArray(RedlockLease[]::new);
		for (Pending acquisition : this.acquisitions.toArray(Pending[]::new)) {
			acquisition.abandonOnClose();
		}
		List<CompletableFuture<?>> releases = new ArrayList<>();
		int left = 0;
		for (RedlockLease lease : held) {
			if (lease.isKeptAlive()) {
				// work still runs under it: deleting the lock would let another instance
				// start the same work now; it can no longer be extended either, so the
				// work is told and the lock expires on the nodes, as after a crash
				lease.markLost("the LockRegistry " + what + " while work still ran under it; the lock was left to "
						+ "expire on the nodes within its TTL rather than deleted under the running work");
				left++;
			}
			else {
				releases.add(lease.releaseAsync());
			}
		}
		if (!releases.isEmpty() || left > 0) {
			logger.info("The LockRegistry is " + what + ": releasing " + releases.size() + " held lock(s)"
					+ ((left > 0) ? ", leaving " + left + " with work still running under them to expire" : ""));
		}
		await(releases, boundNanos, "the LockRegistry " + what);
	}

	/**
	 * Waits at most {@code boundNanos} for releases: those that do not land in time go
	 * on, and locks expire in any case.
	 */
	private static void await(List<CompletableFuture<?>> releases, long boundNanos, String when) {
		try {
			CompletableFuture.allOf(releases.toArray(CompletableFuture<?>[]::new))
				.get(boundNanos, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.debug("Not every lease was released when " + when, ex);
		}
	}

	/**
	 * An acquisition of any kind while it runs.
	 */
	public interface Pending {

		/**
		 * Fails the acquisition because the registry stopped or closed; a lease the nodes
		 * grant it later is released and handed to nobody.
		 */
		void abandonOnClose();

	}

}
