package io.github.redlock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import io.github.redlock.LeaseListener;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;
import io.github.redlock.NodeFailure;
import org.jspecify.annotations.Nullable;

/**
 * The locks that in-memory registries share: what the nodes are to quorum registries. A
 * registry made with {@link InMemoryLockRegistry#anotherProcess()} shares its store, so
 * that two registries contend as two processes do.
 * <p>
 * <b>Invariants.</b> A key's holders change only under {@link #lock}, and every change
 * that may let a waiter in wakes all waiters. A key's fencing counter never goes down and
 * every grant of the key, whatever its kind, takes the next value, so tokens strictly
 * rise for successive holders. A lease leaves its key's holders when it is released, or
 * when the store next looks at the key after its end (its TTL, or the end its holder
 * asked for); a lease that ends that way while its holder meant to keep it is lost, and
 * its listeners are told, outside the lock.
 * <p>
 * One piece: every kind of lock (exclusive, read, write, permit) shares one key's holders
 * and counter under one lock, which is what makes these invariants hold.
 *
 * @author redlock contributors
 */
final class MemoryStore {

	/** The pseudo node a refusal names. */
	static final String NODE = "memory";

	private static final AtomicInteger threadCount = new AtomicInteger();

	/** Runs asynchronous acquisitions and listeners, for every store. */
	static final ExecutorService callbacks = Executors.newCachedThreadPool(daemon("redlock-memory-"));

	/** Looks at keys when a lease's end comes, for every store. */
	private static final ScheduledExecutorService timers = Executors
		.newSingleThreadScheduledExecutor(daemon("redlock-memory-timer-"));

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	private final Map<String, KeyState> keys = new HashMap<>();

	/**
	 * The kinds of grant: the exclusive lock, a read lock, the write lock, a semaphore's
	 * permit.
	 */
	enum Kind {

		EXCLUSIVE, READ, WRITE, PERMIT

	}

	/**
	 * What one acquisition asks for.
	 *
	 * @param registry the asking registry, whose state refuses or abandons it
	 * @param kind what it asks for
	 * @param key the key
	 * @param ttl the lease's TTL
	 * @param waitTime how long to wait for it
	 * @param autoExtend whether to keep the lease extended until released
	 * @param permits the semaphore's permits, for a permit
	 * @param writing the asking thread's write lease of the key, which lets a read lock
	 * in (a downgrade), or {@code null}
	 * @param abandoned whether the asker gave up (a cancelled future)
	 */
	record Request(InMemoryLockRegistry registry, Kind kind, String key, Duration ttl, Duration waitTime,
			boolean autoExtend, int permits, @Nullable MemoryLease writing, BooleanSupplier abandoned) {
	}

	/**
	 * Grants the request as soon as its key allows it within its wait time.
	 * @return the lease, held
	 * @throws LockAcquisitionException if the wait time passed first
	 * @throws IllegalStateException if the registry closed
	 * @throws CancellationException if the asker gave up
	 * @throws InterruptedException if the thread was interrupted while it waited
	 */
	MemoryLease acquire(Request request) throws InterruptedException {
		long start = System.nanoTime();
		long waitNanos = nanos(request.waitTime());
		int attempts = 0;
		boolean writerWaits = false;
		List<MemoryLease> lost = new ArrayList<>();
		this.lock.lock();
		KeyState state = this.keys.computeIfAbsent(request.key(), (key) -> new KeyState());
		try {
			while (true) {
				request.registry().checkNotClosedWhileAcquiring(request.key());
				if (request.abandoned().getAsBoolean()) {
					throw new CancellationException("Acquisition of lock abandoned");
				}
				long now = System.nanoTime();
				state.expire(now, lost);
				attempts++;
				if (state.grants(request, writerWaits)) {
					return grant(request, state, now);
				}
				long left = waitNanos - (now - start);
				if (left <= 0) {
					throw held(request, attempts);
				}
				if (request.kind() == Kind.WRITE && !writerWaits) {
					writerWaits = true;
					state.waitingWriters++;
				}
				request.registry().waiting(1);
				try {
					this.changed.awaitNanos(Math.min(left, state.nanosToNextEnd(now)));
				}
				finally {
					request.registry().waiting(-1);
				}
			}
		}
		finally {
			if (writerWaits) {
				state.waitingWriters--;
				this.changed.signalAll(); // readers held back by this writer may go
			}
			this.lock.unlock();
			tellLost(lost);
		}
	}

	private MemoryLease grant(Request request, KeyState state, long now) {
		String owner = request.registry().owner();
		MemoryLease lease = new MemoryLease(this, request.registry(), request.kind(), request.key(), owner,
				UUID.randomUUID().toString(), ++state.counter, request.ttl(), request.autoExtend(), now);
		state.holders.add(lease);
		request.registry().track(lease);
		lookAtEnd(lease);
		return lease;
	}

	private static LockAcquisitionException held(Request request, int attempts) {
		return new LockAcquisitionException(LockAcquisitionException.Reason.HELD, request.key(), request.waitTime(),
				attempts, 0, 1, 1, List.of(new NodeFailure(NODE, NodeFailure.Kind.HELD, null)),
				"an in-memory registry");
	}

	/**
	 * Extends a held lease to {@code ttl} from now.
	 * @return whether it was held and is extended
	 */
	boolean extend(MemoryLease lease, Duration ttl) {
		if (ttl == null || ttl.isNegative() || ttl.isZero()) {
			throw new IllegalArgumentException("ttl must be positive, was " + ttl);
		}
		return change(lease, () -> {
			lease.ttl = ttl;
			lease.expiresAt = System.nanoTime() + nanos(ttl);
		});
	}

	/**
	 * Keeps a held lease extended until released, or stops that and lets it live
	 * {@code ttl} from now.
	 */
	void keepExtended(MemoryLease lease, boolean extended, Duration ttl) {
		change(lease, () -> {
			lease.autoExtended = extended;
			lease.ttl = ttl;
			lease.expiresAt = System.nanoTime() + nanos(ttl);
		});
	}

	/**
	 * Ends a held lease {@code duration} from now, and no later: not kept extended any
	 * more, and no loss when the end comes. With {@code released}, it counts as released
	 * at once, yet keeps its key until then.
	 * @return whether it was held and the end is set
	 */
	boolean endAt(MemoryLease lease, Duration duration, boolean released) {
		return change(lease, () -> {
			lease.autoExtended = false;
			lease.endAsked = true;
			lease.expiresAt = System.nanoTime() + nanos(duration);
			if (released) {
				lease.state = MemoryLease.State.RELEASED;
				lease.registry.forget(lease);
			}
		});
	}

	// keys never leave the map, which a lease's key entered when it was granted
	@SuppressWarnings("NullAway")
	private boolean change(MemoryLease lease, Runnable change) {
		List<MemoryLease> lost = new ArrayList<>();
		this.lock.lock();
		try {
			this.keys.get(lease.key).expire(System.nanoTime(), lost);
			if (lease.state != MemoryLease.State.HELD) {
				return false;
			}
			change.run();
			lookAtEnd(lease);
			this.changed.signalAll();
			return true;
		}
		finally {
			this.lock.unlock();
			tellLost(lost);
		}
	}

	/**
	 * Releases a held lease: its key is free of it at once. Does nothing for a lease
	 * released, ended or lost already.
	 */
	// keys never leave the map, which a lease's key entered when it was granted
	@SuppressWarnings("NullAway")
	void release(MemoryLease lease) {
		this.lock.lock();
		try {
			if (lease.state == MemoryLease.State.HELD) {
				lease.state = MemoryLease.State.RELEASED;
				this.keys.get(lease.key).holders.remove(lease);
				lease.registry.forget(lease);
				this.changed.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Loses a held lease whose registry closed: it keeps its key for one TTL from now, as
	 * a crashed process leaves its locks on the nodes.
	 */
	void lose(MemoryLease lease, String reason) {
		this.lock.lock();
		try {
			if (lease.state != MemoryLease.State.HELD) {
				return;
			}
			lease.state = MemoryLease.State.LOST;
			lease.lossCause = new LockLostException(lease.key, reason);
			lease.autoExtended = false;
			lease.expiresAt = System.nanoTime() + nanos(lease.ttl);
			lookAtEnd(lease);
		}
		finally {
			this.lock.unlock();
		}
		tellLost(List.of(lease));
	}

	// keys never leave the map, which a lease's key entered when it was granted
	@SuppressWarnings("NullAway")
	void addListener(MemoryLease lease, LeaseListener listener) {
		boolean lostAlready;
		List<MemoryLease> lost = new ArrayList<>();
		this.lock.lock();
		try {
			this.keys.get(lease.key).expire(System.nanoTime(), lost);
			lostAlready = lease.state == MemoryLease.State.LOST;
			if (!lostAlready) {
				lease.listeners.add(listener);
			}
		}
		finally {
			this.lock.unlock();
		}
		tellLost(lost);
		if (lostAlready) {
			listener.leaseLost(lease, lease.lossCause);
		}
	}

	/**
	 * Returns the key's holder (the exclusive lock's or the write lock's, else a reader)
	 * and its fencing counter, for inspection.
	 */
	Snapshot snapshot(String key) {
		List<MemoryLease> lost = new ArrayList<>();
		this.lock.lock();
		try {
			KeyState state = this.keys.get(key);
			if (state == null) {
				return new Snapshot(null, 0);
			}
			state.expire(System.nanoTime(), lost);
			MemoryLease holder = state.holders.stream()
				.filter((lease) -> lease.kind != Kind.PERMIT)
				.min((a, b) -> Boolean.compare(a.kind == Kind.READ, b.kind == Kind.READ))
				.orElse(null);
			return new Snapshot(holder, state.counter);
		}
		finally {
			this.lock.unlock();
			tellLost(lost);
		}
	}

	/**
	 * Counts the live permits of a semaphore's key.
	 */
	int permitsHeld(String key) {
		List<MemoryLease> lost = new ArrayList<>();
		this.lock.lock();
		try {
			KeyState state = this.keys.get(key);
			if (state == null) {
				return 0;
			}
			state.expire(System.nanoTime(), lost);
			return state.count(Kind.PERMIT);
		}
		finally {
			this.lock.unlock();
			tellLost(lost);
		}
	}

	/** Wakes every waiter, to look at its registry's state or its asker's. */
	void wakeAll() {
		this.lock.lock();
		try {
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void lookAtEnd(MemoryLease lease) {
		if (!lease.autoExtended) {
			long delay = lease.expiresAt - System.nanoTime();
			timers.schedule(() -> lookAt(lease.key), Math.max(0, delay) + 1_000_000, TimeUnit.NANOSECONDS);
		}
	}

	// keys never leave the map, which a lease's key entered when it was granted
	@SuppressWarnings("NullAway")
	private void lookAt(String key) {
		List<MemoryLease> lost = new ArrayList<>();
		this.lock.lock();
		try {
			this.keys.get(key).expire(System.nanoTime(), lost);
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
		tellLost(lost);
	}

	@SuppressWarnings("NullAway") // a lease is listed as lost once its cause is set
	private static void tellLost(List<MemoryLease> lost) {
		for (MemoryLease lease : lost) {
			for (LeaseListener listener : lease.listeners) {
				callbacks.execute(() -> listener.leaseLost(lease, lease.lossCause));
			}
		}
	}

	static long nanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE / 2;
		}
	}

	private static ThreadFactory daemon(String prefix) {
		return (runnable) -> {
			Thread thread = new Thread(runnable, prefix + threadCount.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * A key's holder and fencing counter.
	 */
	record Snapshot(@Nullable MemoryLease holder, long counter) {
	}

	/**
	 * One key: its fencing counter, its holders of every kind and its waiting writers.
	 */
	private static final class KeyState {

		long counter;

		final Set<MemoryLease> holders = new LinkedHashSet<>();

		int waitingWriters;

		boolean grants(Request request, boolean writerWaits) {
			return switch (request.kind()) {
				case EXCLUSIVE, WRITE -> count(Kind.EXCLUSIVE) + count(Kind.WRITE) + count(Kind.READ) == 0;
				case READ -> count(Kind.EXCLUSIVE) == 0
						&& (request.writing() != null || (count(Kind.WRITE) == 0 && this.waitingWriters == 0));
				case PERMIT -> count(Kind.PERMIT) < request.permits();
			};
		}

		int count(Kind kind) {
			int count = 0;
			for (MemoryLease lease : this.holders) {
				if (lease.kind == kind) {
					count++;
				}
			}
			return count;
		}

		/** Removes the holders whose end has come; collects those lost by it. */
		void expire(long now, List<MemoryLease> lost) {
			this.holders.removeIf((lease) -> {
				if (!lease.expired(now)) {
					return false;
				}
				if (lease.state == MemoryLease.State.HELD) {
					if (lease.endAsked) {
						lease.state = MemoryLease.State.RELEASED;
					}
					else {
						lease.state = MemoryLease.State.LOST;
						lease.lossCause = new LockLostException(lease.key,
								"its ttl of " + lease.ttl.toMillis() + "ms ran out before it was extended or released");
						lost.add(lease);
					}
					lease.registry.forget(lease);
				}
				return true;
			});
		}

		long nanosToNextEnd(long now) {
			long next = Long.MAX_VALUE;
			for (MemoryLease lease : this.holders) {
				if (!lease.autoExtended) {
					next = Math.min(next, Math.max(0, lease.expiresAt - now) + 1);
				}
			}
			return next;
		}

	}

}
