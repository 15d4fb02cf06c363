package io.github.redlock.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redlock.Lease;
import io.github.redlock.LeaseListener;
import io.github.redlock.LockKeys;
import io.github.redlock.LockLostException;
import org.jspecify.annotations.Nullable;

/**
 * One grant of a key by a {@link MemoryStore}: what a quorum lease is, with the store
 * standing for the nodes. Its state changes only under the store's lock; reads need no
 * lock, as every field they read is volatile.
 *
 * @author redlock contributors
 */
final class MemoryLease implements Lease {

	enum State {

		/** Granted and neither released nor lost (it may have run past its TTL). */
		HELD,

		/** Released by its holder, or ended when its holder asked it to. */
		RELEASED,

		/** Ended while its holder meant to keep it. */
		LOST

	}

	final MemoryStore store;

	final InMemoryLockRegistry registry;

	final MemoryStore.Kind kind;

	final String key;

	final String owner;

	final String holding;

	private final long fencingToken;

	final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();

	volatile State state = State.HELD;

	/** When the lease ends unless extended, on {@link System#nanoTime()}. */
	volatile long expiresAt;

	/** Whether it is kept extended until released, as the watchdog keeps a lease. */
	volatile boolean autoExtended;

	/** Whether the holder asked for its end, so that reaching it is no loss. */
	volatile boolean endAsked;

	volatile Duration ttl;

	volatile @Nullable LockLostException lossCause;

	MemoryLease(MemoryStore store, InMemoryLockRegistry registry, MemoryStore.Kind kind, String key, String owner,
			String holding, long fencingToken, Duration ttl, boolean autoExtended, long now) {
		this.store = store;
		this.registry = registry;
		this.kind = kind;
		this.key = key;
		this.owner = owner;
		this.holding = holding;
		this.fencingToken = fencingToken;
		this.ttl = ttl;
		this.autoExtended = autoExtended;
		this.expiresAt = now + MemoryStore.nanos(ttl);
	}

	boolean expired(long now) {
		return !this.autoExtended && now - this.expiresAt >= 0;
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public long fencingToken() {
		return this.fencingToken;
	}

	@Override
	public boolean isHeld() {
		return this.state == State.HELD && !expired(System.nanoTime());
	}

	@Override
	public Duration remainingValidity() {
		if (!isHeld()) {
			return Duration.ZERO;
		}
		return this.autoExtended ? this.ttl : Duration.ofNanos(Math.max(0, this.expiresAt - System.nanoTime()));
	}

	@Override
	public boolean extend(Duration ttl) {
		return this.store.extend(this, ttl);
	}

	@Override
	public boolean holdFor(Duration duration) {
		if (duration == null || duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException("duration must be positive, was " + duration);
		}
		return this.store.endAt(this, duration, false);
	}

	@Override
	public void releaseAfter(Duration delay) {
		if (delay == null || delay.isNegative() || delay.isZero() || !this.store.endAt(this, delay, true)) {
			release();
		}
	}

	@Override
	public void release() {
		this.store.release(this);
	}

	@Override
	public CompletableFuture<@Nullable Void> releaseAsync() {
		release();
		return CompletableFuture.completedFuture(null);
	}

	@Override
	public void addListener(LeaseListener listener) {
		this.store.addListener(this, listener);
	}

	@Override
	public void close() {
		release();
	}

	@Override
	public String toString() {
		return "MemoryLease[" + this.kind.name().toLowerCase() + " '" + LockKeys.printable(this.key) + "', token "
				+ this.fencingToken + ", " + this.state.name().toLowerCase() + "]";
	}

}
