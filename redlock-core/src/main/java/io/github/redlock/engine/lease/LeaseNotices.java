package io.github.redlock.engine.lease;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import io.github.redlock.LeaseListener;
import io.github.redlock.LockKeys;
import io.github.redlock.LockLostException;
import io.github.redlock.engine.LockObserver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Who hears how one lease ends, and how they are told: its {@link LeaseListener}s, the
 * registry's {@link LockObserver} for this hold, and the registry's events. It decides
 * nothing: {@link LeaseState} calls it when, and only when, it won the end it tells. A
 * failing listener or observer is logged, and the others are still told.
 * <p>
 * <b>Invariants:</b> each listener is told of a loss at most once, by whoever removes it
 * from the list (the loss, or {@link #tellIfListening} as it is added); the observer is
 * told at most once, by whoever takes it out of {@link #observation}.
 *
 * @author redlock contributors
 */
final class LeaseNotices {

	private static final Log logger = LogFactory.getLog(LeaseNotices.class);

	private static final AtomicReferenceFieldUpdater<LeaseNotices, LockObserver.Holding> OBSERVATION = AtomicReferenceFieldUpdater
		.newUpdater(LeaseNotices.class, LockObserver.Holding.class, "observation");

	private final EngineContext engine;

	private final RedlockLease lease;

	private final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();

	/** Hears how the hold ends, if the registry has a {@link LockObserver}. */
	private volatile LockObserver.Holding observation;

	private final long acquiredNanos;

	LeaseNotices(EngineContext engine, RedlockLease lease) {
		this.engine = engine;
		this.lease = lease;
		this.acquiredNanos = System.nanoTime();
	}

	/** Tells the registry's events that the lease was released. */
	void released() {
		if (this.engine.events().any()) {
			Duration held = heldFor();
			String key = this.lease.key();
			this.engine.events().tell((listener) -> listener.released(key, held));
		}
	}

	/**
	 * Tells the lease's listeners (off the I/O and scheduler threads: a listener may well
	 * release the lease, which waits for the nodes' replies), the registry's events and
	 * the observer that the lease was lost.
	 */
	void lost(LockLostException cause) {
		if (!this.listeners.isEmpty()) {
			this.engine.callbacks().execute(() -> {
				for (LeaseListener listener : this.listeners) {
					tellIfListening(listener, cause);
				}
			});
		}
		if (this.engine.events().any()) {
			Duration held = heldFor();
			String key = this.lease.key();
			this.engine.events().tell((listener) -> listener.lost(key, held));
		}
		if (this.observation != null) {
			endObservation(cause);
		}
	}

	void listen(LeaseListener listener) {
		this.listeners.add(listener);
	}

	/** Tells {@code listener} of the loss, if it is still listed: whoever removes it. */
	void tellIfListening(LeaseListener listener, LockLostException cause) {
		if (!this.listeners.remove(listener)) {
			return;
		}
		try {
			listener.leaseLost(this.lease, cause);
		}
		catch (RuntimeException ex) {
			logger.warn("Lease listener failed for lock '" + LockKeys.printable(this.lease.key()) + "'", ex);
		}
	}

	/**
	 * Sets the observer of this hold; the caller reads the lease's state after this, as
	 * the end sets the state before it reads the observer: one of them at least sees the
	 * other.
	 */
	void observe(LockObserver.Holding holding) {
		this.observation = holding;
	}

	/** Returns whether an observer may still be told. */
	boolean observed() {
		return this.observation != null;
	}

	/**
	 * Tells the observer, if not told yet, that the hold was released, or lost when
	 * {@code lost} is given.
	 */
	void endObservation(LockLostException lost) {
		LockObserver.Holding holding = OBSERVATION.getAndSet(this, null);
		if (holding == null) {
			return;
		}
		try {
			if (lost != null) {
				holding.lost(lost);
			}
			else {
				holding.released();
			}
		}
		catch (RuntimeException ex) {
			logger.warn("LockObserver failed for lock '" + LockKeys.printable(this.lease.key()) + "'", ex);
		}
	}

	private Duration heldFor() {
		return Duration.ofNanos(System.nanoTime() - this.acquiredNanos);
	}

}
