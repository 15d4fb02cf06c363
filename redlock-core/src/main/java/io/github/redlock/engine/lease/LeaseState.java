package io.github.redlock.engine.lease;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.LeaseListener;
import io.github.redlock.LockKeys;
import io.github.redlock.LockLostException;
import io.github.redlock.engine.LockObserver;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Where one lease stands (held, released, lost, or released but left on the nodes until
 * its end) and how it leaves it: by a release, a loss, an end asked for, or the deletion
 * at an end that has come. Whoever ends it tells whom its end concerns: the watchdog and
 * the registry's held leases, its key's line (through its {@link LeaseOps}, which end the
 * lease's {@code LineHold} as it ended), and those who hear of it ({@link LeaseNotices}).
 * <p>
 * <b>Invariant:</b> a lease's end is told exactly once, by the winner of its state's
 * {@code compareAndSet}. A lease leaves {@link #HELD} (or {@link #LINGERING}) only by a
 * {@code compareAndSet} of {@link #state}, in this class, and only the thread that wins
 * it tells the end; so an end is told exactly once, whichever of release, loss, an end
 * asked for or a stop comes first. A lingering lease told the registry's events of its
 * release as it began to linger; its line hears of its end when it leaves the nodes.
 *
 * @author redlock contributors
 */
final class LeaseState {

	private static final Log logger = LogFactory.getLog(LeaseState.class);

	private static final int HELD = 0;

	private static final int RELEASED = 1;

	private static final int LOST = 2;

	/** Released by its holder, but left on the nodes until its end. */
	private static final int LINGERING = 3;

	private final EngineContext engine;

	private final RedlockLease lease;

	private final LeaseOps ops;

	private final LeaseWatchdog watchdog;

	private final LeaseNotices notices;

	private final String secret;

	private final QuorumCall acquisition;

	private final AtomicInteger state = new AtomicInteger(HELD);

	private volatile String lostReason;

	LeaseState(EngineContext engine, RedlockLease lease, LeaseOps ops, LeaseWatchdog watchdog, LeaseNotices notices,
			String secret, QuorumCall acquisition) {
		this.engine = engine;
		this.lease = lease;
		this.ops = ops;
		this.watchdog = watchdog;
		this.notices = notices;
		this.secret = secret;
		this.acquisition = acquisition;
	}

	/**
	 * Returns whether the lease was neither released nor declared lost; it may still have
	 * expired.
	 */
	boolean isActive() {
		return this.state.get() == HELD;
	}

	boolean isLost() {
		return this.state.get() == LOST;
	}

	/**
	 * Returns whether the watchdog still has work: the lease is held, or released but
	 * left on the nodes until its end.
	 */
	boolean isWatched() {
		int current = this.state.get();
		return current == HELD || current == LINGERING;
	}

	boolean isLingering() {
		return this.state.get() == LINGERING;
	}

	/**
	 * Released by its holder with a minimum hold: left on the nodes until its end, and
	 * gone from the held leases, so that closing the registry leaves it to expire rather
	 * than deleting it.
	 * @return whether it was held and now lingers
	 */
	boolean linger() {
		if (!this.state.compareAndSet(HELD, LINGERING)) {
			return false;
		}
		this.engine.leases().remove(this.lease);
		this.notices.released();
		return true;
	}

	void markLost(String reason) {
		if (this.state.compareAndSet(LINGERING, RELEASED)) {
			// its holder let it go already: only its minimum hold is cut short
			ended();
			logger.info("Lock '" + LockKeys.printable(this.lease.key())
					+ "' may be acquired again before the end of the hold asked for when it was released: " + reason);
			return;
		}
		if (!this.state.compareAndSet(HELD, LOST)) {
			return;
		}
		this.lostReason = reason;
		LockLostException cause = new LockLostException(this.lease.key(), reason);
		ended();
		logger.warn(cause.getMessage());
		this.notices.lost(cause);
	}

	/**
	 * Ends the lease at the end asked for: quietly, since its holder asked for it.
	 */
	void endAsAsked() {
		if (this.state.compareAndSet(LINGERING, RELEASED)) {
			ended();
			return;
		}
		if (!this.state.compareAndSet(HELD, RELEASED)) {
			return;
		}
		ended();
		if (logger.isDebugEnabled()) {
			logger.debug("Lock '" + LockKeys.printable(this.lease.key()) + "' reached the end asked for and expired");
		}
		this.notices.released();
	}

	/**
	 * Stops watching a lease that ended without a release (lost, or at the end asked
	 * for), forgets it (a lingering one was forgotten when released), and tells the key's
	 * line in this registry.
	 */
	private void ended() {
		this.watchdog.cancel();
		this.engine.leases().remove(this.lease);
		this.ops.ended();
	}

	/**
	 * Ends a held or lingering lease at an end that has come: deletes the lock on every
	 * node, as a release does. The key's line in this registry counts the holder until a
	 * quorum deleted it.
	 * @return once every node answered, or {@code null} if the lease had ended already
	 */
	CompletableFuture<Boolean> deleteAtEnd() {
		int previous = this.state.get();
		if ((previous != HELD && previous != LINGERING) || !this.state.compareAndSet(previous, RELEASED)) {
			return null;
		}
		this.watchdog.cancel();
		this.engine.leases().remove(this.lease);
		if (previous == HELD) {
			releasedByHolder();
		}
		return releaseEverywhere(this.ops::released, null);
	}

	/**
	 * Deletes the lock on every node where it still holds this lease's value, and logs a
	 * warning if fewer than a quorum of nodes could be freed of it.
	 * @return a future that completes, on the thread of a reply, once a quorum of nodes
	 * is free of the lock ({@link NodeFleet#releaseEverywhere}: the others' deletions go
	 * on in the background), or once every node answered or timed out when a quorum could
	 * not be freed
	 */
	CompletableFuture<Boolean> release() {
		int previous;
		do {
			previous = this.state.get();
			if (previous == RELEASED || previous == LINGERING) {
				// a lingering lease was released by its holder already
				return CompletableFuture.completedFuture(true);
			}
		}
		while (!this.state.compareAndSet(previous, RELEASED));
		this.watchdog.cancel();
		this.engine.leases().remove(this.lease);
		// a lost lease was reported as lost: releasing it afterwards is only clean-up
		if (previous == HELD) {
			releasedByHolder();
		}
		// the next waiter of this registry tries once a quorum is free of the lock; a
		// lost lease told the line when it was lost
		// a held lease's release warns when it could not free a quorum (NodeFleet)
		return (previous == HELD) ? releaseEverywhere(this.ops::released, this.lease.key())
				: releaseEverywhere(null, null);
	}

	/** Tells the registry's events and the observer that the held lease was released. */
	private void releasedByHolder() {
		this.notices.released();
		if (this.notices.observed()) {
			this.notices.endObservation(null);
		}
	}

	/**
	 * Deletes the lease's value on every node with its release script.
	 * @param afterQuorum tells the key's line once a quorum is done with it, or
	 * {@code null} for the clean-up of a lease whose end was told already
	 * @param warnKey the key to warn with if no quorum could be freed, or {@code null}
	 */
	private CompletableFuture<Boolean> releaseEverywhere(NodeFleet.AfterQuorum afterQuorum, String warnKey) {
		return this.ops.release(this.engine.fleet(), this.secret, this.lease.fencingToken(), this.acquisition,
				afterQuorum, warnKey);
	}

	/**
	 * Tells {@code holding} how this hold ends; at once if it has ended already.
	 */
	void observe(LockObserver.Holding holding) {
		this.notices.observe(holding);
		// set before reading the state, as markLost and release set the state before
		// reading it: one of them at least sees the other
		int current = this.state.get();
		if (current != HELD) {
			this.notices.endObservation((current == LOST || this.lostReason != null) ? lossCause() : null);
		}
	}

	/**
	 * Tells a listener just added at once if the lease was lost already.
	 */
	void listen(LeaseListener listener) {
		this.notices.listen(listener);
		if (this.lostReason != null) {
			this.notices.tellIfListening(listener, lossCause());
		}
	}

	/**
	 * Returns why the lease is not held, for callers that find it gone.
	 */
	LockLostException lossCause() {
		String reason = this.lostReason;
		return new LockLostException(this.lease.key(),
				(reason != null) ? reason : "its validity ran out before the work under it finished");
	}

	/** Describes the state for {@link RedlockLease#toString}. */
	String describe() {
		return switch (this.state.get()) {
			case HELD -> this.lease.isHeld() ? "held" : "expired";
			case LOST -> "lost";
			case LINGERING -> "released, held until its end";
			default -> "released";
		};
	}

}
