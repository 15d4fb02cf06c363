package io.github.redlock.engine.lease;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.LeaseListener;
import io.github.redlock.LockKeys;
import io.github.redlock.LockLostException;
import io.github.redlock.engine.LockObserver;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Where one lease stands (held, released, lost, or released but left on the nodes until
 * its end) and how it leaves it: by a release, a loss, an end asked for, or the deletion
 * at an end that has come. Whoever ends it tells whom its end concerns: the watchdog and
 * the registry's held leases, its key's line (through its {@link LeaseOps}, which end the
 * lease's {@code LineHold} as it ended), and those who hear of it ({@link LeaseNotices}).
 * <p>
 * A part of a {@link RedlockLease}, between {@link LeaseNotices} and
 * {@link LeaseExtensions}: a superclass rather than a field, so that a lease is one
 * object, each of its fields held once, since the bytes of a lock cycle and the heap of
 * each held lease count. It holds what the release and the extensions both send (the
 * kind's {@link LeaseOps}, and the value's secret, cut from the value when sent) and the
 * lease's {@link LeaseWatchdog}.
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
abstract sealed class LeaseState extends LeaseNotices permits LeaseExtensions {

	private static final Log logger = LogFactory.getLog(LeaseState.class);

	private static final int HELD = 0;

	private static final int RELEASED = 1;

	private static final int LOST = 2;

	/** Released by its holder, but left on the nodes until its end. */
	private static final int LINGERING = 3;

	private static final VarHandle STATE;

	static {
		try {
			STATE = MethodHandles.lookup().findVarHandle(LeaseState.class, "state", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/** How its kind acts on the nodes and in this registry. */
	final LeaseOps ops;

	final LeaseWatchdog watchdog;

	private final QuorumCall acquisition;

	/**
	 * {@link #HELD} (zero, as made), {@link #RELEASED}, {@link #LOST} or
	 * {@link #LINGERING}.
	 */
	private volatile int state;

	private volatile @Nullable String lostReason;

	LeaseState(EngineContext engine, LeaseOps ops, QuorumCall acquisition) {
		super(engine);
		this.ops = ops;
		this.acquisition = acquisition;
		this.watchdog = new LeaseWatchdog(self());
	}

	/** This lease as the registry knows it: the sealed chain ends in it. */
	private RedlockLease self() {
		return (RedlockLease) this;
	}

	/**
	 * Returns the value's secret part, which alone is sent to extend and release: cut
	 * from the value when sent rather than kept beside it, since each held lease's heap
	 * counts more than the few bytes an extension makes.
	 */
	final String secret() {
		return LockValues.secret(self().value());
	}

	private boolean moveState(int from, int to) {
		return STATE.compareAndSet(this, from, to);
	}

	/**
	 * Returns whether the lease was neither released nor declared lost; it may still have
	 * expired.
	 */
	final boolean isActive() {
		return this.state == HELD;
	}

	final boolean wasLost() {
		return this.state == LOST;
	}

	/**
	 * Returns whether the watchdog still has work: the lease is held, or released but
	 * left on the nodes until its end.
	 */
	final boolean isWatched() {
		int current = this.state;
		return current == HELD || current == LINGERING;
	}

	final boolean isLingering() {
		return this.state == LINGERING;
	}

	/**
	 * Released by its holder with a minimum hold: left on the nodes until its end, and
	 * gone from the held leases, so that closing the registry leaves it to expire rather
	 * than deleting it.
	 * @return whether it was held and now lingers
	 */
	final boolean linger() {
		if (!moveState(HELD, LINGERING)) {
			return false;
		}
		this.engine.leases().remove(self());
		tellReleased();
		return true;
	}

	/**
	 * Declares the lease lost, unless it ended already; a lease released with a minimum
	 * hold only has that hold cut short.
	 */
	final void lose(String reason) {
		if (moveState(LINGERING, RELEASED)) {
			// its holder let it go already: only its minimum hold is cut short
			ended();
			logger.info("Lock '" + LockKeys.printable(key())
					+ "' may be acquired again before the end of the hold asked for when it was released: " + reason);
			return;
		}
		if (!moveState(HELD, LOST)) {
			return;
		}
		this.lostReason = reason;
		LockLostException cause = new LockLostException(key(), reason);
		ended();
		this.engine.losses().lost(key(), reason, cause);
		tellLost(cause);
	}

	/**
	 * Ends the lease at the end asked for: quietly, since its holder asked for it.
	 */
	final void endAsAsked() {
		if (moveState(LINGERING, RELEASED)) {
			ended();
			return;
		}
		if (!moveState(HELD, RELEASED)) {
			return;
		}
		ended();
		if (logger.isDebugEnabled()) {
			logger.debug("Lock '" + LockKeys.printable(key()) + "' reached the end asked for and expired");
		}
		tellReleased();
	}

	/**
	 * Stops watching a lease that ended without a release (lost, or at the end asked
	 * for), forgets it (a lingering one was forgotten when released), and tells the key's
	 * line in this registry.
	 */
	private void ended() {
		this.watchdog.cancel();
		this.engine.leases().remove(self());
		this.ops.ended();
	}

	/**
	 * Ends a held or lingering lease at an end that has come: deletes the lock on every
	 * node, as a release does. The key's line in this registry counts the holder until a
	 * quorum deleted it.
	 * @return once every node answered, or {@code null} if the lease had ended already
	 */
	final @Nullable CompletableFuture<Boolean> deleteAtEnd() {
		int previous = this.state;
		if ((previous != HELD && previous != LINGERING) || !moveState(previous, RELEASED)) {
			return null;
		}
		this.watchdog.cancel();
		this.engine.leases().remove(self());
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
	final CompletableFuture<Boolean> releaseOnNodes() {
		int previous;
		do {
			previous = this.state;
			if (previous == RELEASED || previous == LINGERING) {
				// a lingering lease was released by its holder already
				return CompletableFuture.completedFuture(true);
			}
		}
		while (!moveState(previous, RELEASED));
		this.watchdog.cancel();
		this.engine.leases().remove(self());
		// a lost lease was reported as lost: releasing it afterwards is only clean-up
		if (previous == HELD) {
			releasedByHolder();
		}
		// the next waiter of this registry tries once a quorum is free of the lock; a
		// lost lease told the line when it was lost
		// a held lease's release warns when it could not free a quorum (NodeFleet)
		return (previous == HELD) ? tellIfNotConfirmed(releaseEverywhere(this.ops::released, key()))
				: releaseEverywhere(null, null);
	}

	/** Tells the registry's events and the observer that the held lease was released. */
	private void releasedByHolder() {
		tellReleased();
		if (observed()) {
			endObservation(null);
		}
	}

	/**
	 * Deletes the lease's value on every node with its release script.
	 * @param afterQuorum tells the key's line once a quorum is done with it, or
	 * {@code null} for the clean-up of a lease whose end was told already
	 * @param warnKey the key to warn with if no quorum could be freed, or {@code null}
	 */
	private CompletableFuture<Boolean> releaseEverywhere(NodeFleet.@Nullable AfterQuorum afterQuorum,
			@Nullable String warnKey) {
		return this.ops.release(this.engine.fleet(), secret(), fencingToken(), this.acquisition, afterQuorum, warnKey);
	}

	/**
	 * Tells {@code holding} how this hold ends; at once if it has ended already.
	 */
	final void observeEnd(LockObserver.Holding holding) {
		setObservation(holding);
		// set before reading the state, as markLost and release set the state before
		// reading it: one of them at least sees the other
		int current = this.state;
		if (current != HELD) {
			endObservation((current == LOST || this.lostReason != null) ? makeLossCause() : null);
		}
	}

	/**
	 * Tells a listener just added at once if the lease was lost already.
	 */
	final void listen(LeaseListener listener) {
		addToListeners(listener);
		if (this.lostReason != null) {
			tellIfListening(listener, makeLossCause());
		}
	}

	/**
	 * Returns why the lease is not held, for callers that find it gone.
	 */
	final LockLostException makeLossCause() {
		String reason = this.lostReason;
		return new LockLostException(key(),
				(reason != null) ? reason : "its validity ran out before the work under it finished");
	}

	/** Describes the state for {@link RedlockLease#toString}. */
	final String describe() {
		return switch (this.state) {
			case HELD -> isHeld() ? "held" : "expired";
			case LOST -> "lost";
			case LINGERING -> "released, held until its end";
			default -> "released";
		};
	}

}
