package io.github.redlock.engine.lease;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redlock.Lease;
import io.github.redlock.LeaseListener;
import io.github.redlock.LockKeys;
import io.github.redlock.LockLostException;
import io.github.redlock.engine.LockObserver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Who hears how one lease ends, and how they are told: its {@link LeaseListener}s, the
 * registry's {@link LockObserver} for this hold, and the registry's events. It decides
 * nothing: {@link LeaseState} calls it when, and only when, it won the end it tells. A
 * failing listener or observer is logged, and the others are still told.
 * <p>
 * The first of the parts a {@link RedlockLease} is made of ({@code LeaseNotices} &lt;
 * {@link LeaseState} &lt; {@link LeaseExtensions} &lt; {@code RedlockLease}): a
 * superclass rather than a field, so that a lease is one object, each of its fields held
 * once, since the bytes of a lock cycle and the heap of each held lease count. It holds
 * what every part uses, the registry's {@link EngineContext}.
 * <p>
 * <b>Invariants:</b> each listener is told of a loss at most once, by whoever removes it
 * from the list (the loss, or {@link #tellIfListening} as it is added); the observer is
 * told at most once, by whoever takes it out of {@link #observation}.
 *
 * @author redlock contributors
 */
abstract sealed class LeaseNotices implements Lease permits LeaseState {

	private static final Log logger = LogFactory.getLog(LeaseNotices.class);

	private static final VarHandle LISTENERS;

	private static final VarHandle OBSERVATION;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			LISTENERS = lookup.findVarHandle(LeaseNotices.class, "listeners", List.class);
			OBSERVATION = lookup.findVarHandle(LeaseNotices.class, "observation", LockObserver.Holding.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	final EngineContext engine;

	/** Made by the first listener added: most leases never get one. */
	private volatile @Nullable List<LeaseListener> listeners;

	/** Hears how the hold ends, if the registry has a {@link LockObserver}. */
	private volatile LockObserver.@Nullable Holding observation;

	private final long acquiredNanos;

	LeaseNotices(EngineContext engine) {
		this.engine = engine;
		this.acquiredNanos = System.nanoTime();
	}

	/** Tells the registry's events that the lease was released. */
	final void tellReleased() {
		if (this.engine.events().any()) {
			Duration held = heldFor();
			String key = key();
			this.engine.events().tell((listener) -> listener.released(key, held));
		}
	}

	/**
	 * Tells the lease's listeners (off the I/O and scheduler threads: a listener may well
	 * release the lease, which waits for the nodes' replies), the registry's events and
	 * the observer that the lease was lost.
	 */
	final void tellLost(LockLostException cause) {
		List<LeaseListener> listeners = this.listeners;
		if (listeners != null && !listeners.isEmpty()) {
			this.engine.callbacks().execute(() -> {
				for (LeaseListener listener : listeners) {
					tellIfListening(listener, cause);
				}
			});
		}
		if (this.engine.events().any()) {
			Duration held = heldFor();
			String key = key();
			this.engine.events().tell((listener) -> listener.lost(key, held, cause));
		}
		if (this.observation != null) {
			endObservation(cause);
		}
	}

	/**
	 * Tells the registry's events, once the nodes answered, if a release by the holder
	 * freed fewer than a quorum of them.
	 */
	final CompletableFuture<Boolean> tellIfNotConfirmed(CompletableFuture<Boolean> release) {
		if (this.engine.events().any()) {
			String key = key();
			release.thenAccept((freed) -> {
				if (!freed) {
					this.engine.events().tell((listener) -> listener.releaseNotConfirmed(key));
				}
			});
		}
		return release;
	}

	// a compareAndSet fails only when another thread made the list
	@SuppressWarnings("NullAway")
	final void addToListeners(LeaseListener listener) {
		List<LeaseListener> listeners = this.listeners;
		if (listeners == null) {
			List<LeaseListener> made = new CopyOnWriteArrayList<>();
			listeners = LISTENERS.compareAndSet(this, null, made) ? made : this.listeners;
		}
		listeners.add(listener);
	}

	/** Tells {@code listener} of the loss, if it is still listed: whoever removes it. */
	final void tellIfListening(LeaseListener listener, LockLostException cause) {
		List<LeaseListener> listeners = this.listeners;
		if (listeners == null || !listeners.remove(listener)) {
			return;
		}
		try {
			listener.leaseLost(this, cause);
		}
		catch (RuntimeException ex) {
			logger.warn("Lease listener failed for lock '" + LockKeys.printable(key()) + "'", ex);
		}
	}

	/**
	 * Sets the observer of this hold; the caller reads the lease's state after this, as
	 * the end sets the state before it reads the observer: one of them at least sees the
	 * other.
	 */
	final void setObservation(LockObserver.Holding holding) {
		this.observation = holding;
	}

	/** Returns whether an observer may still be told. */
	final boolean observed() {
		return this.observation != null;
	}

	/**
	 * Tells the observer, if not told yet, that the hold was released, or lost when
	 * {@code lost} is given.
	 */
	final void endObservation(@Nullable LockLostException lost) {
		LockObserver.Holding holding = (LockObserver.Holding) OBSERVATION.getAndSet(this, null);
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
			logger.warn("LockObserver failed for lock '" + LockKeys.printable(key()) + "'", ex);
		}
	}

	private Duration heldFor() {
		return Duration.ofNanos(System.nanoTime() - this.acquiredNanos);
	}

}
