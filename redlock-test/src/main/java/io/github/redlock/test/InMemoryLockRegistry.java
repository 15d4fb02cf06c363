package io.github.redlock.test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import io.github.redlock.Durations;
import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockAcquisitionException.Reason;
import io.github.redlock.LockInfo;
import io.github.redlock.LockKeys;
import io.github.redlock.LockLostException;
import io.github.redlock.LockRegistry;
import io.github.redlock.LockSemaphore;
import io.github.redlock.engine.node.KeyLayout;
import io.github.redlock.test.MemoryStore.Kind;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockRegistry} that keeps its locks in memory, for fast unit tests of code that
 * locks: no nodes, no network, no threads of its own but shared daemon ones. It keeps the
 * contract of the quorum registry ({@code RedlockRegistry}), whose contract tests it
 * passes: fencing tokens that strictly rise for successive holders of a key;
 * thread-reentrant blocking calls that keep the outer lease's token; TTLs that end a
 * lease not extended or released in time (its listeners are told it was lost); read-write
 * locks with waiting writers first and downgrades; semaphores; the {@link Lock} and
 * {@link ReadWriteLock} views with the JDK's {@code Lock} semantics; and refusals with
 * the same {@link LockAcquisitionException} reasons.
 * <p>
 * Locks are shared by this registry and the ones {@link #anotherProcess()} makes, which
 * stand for other processes: reentrancy is per registry and thread, exclusion across all
 * of them. What it has not: nodes (a refusal names one pseudo node, {@code memory}, and
 * never says {@link Reason#NO_QUORUM} or {@link Reason#VALIDITY_EXHAUSTED}), a restart
 * guard, a maximum TTL or hold time, and observers. A lease kept extended (by
 * {@link #executeLocked}, a {@code Lock} view or {@code autoExtend}) simply does not end
 * until released.
 *
 * <pre class="code">
 * InMemoryLockRegistry locks = new InMemoryLockRegistry();
 * PaymentService service = new PaymentService(locks);
 * </pre>
 * <p>
 * Longer than most classes because {@link LockRegistry} is: each of its methods is a line
 * or two handing the call to {@code MemoryStore}, which owns the locks' invariants, with
 * the argument checks the quorum registry makes.
 *
 * @author redlock contributors
 */
public final class InMemoryLockRegistry implements LockRegistry, AutoCloseable {

	private static final AtomicInteger count = new AtomicInteger();

	private final MemoryStore store;

	private final Duration defaultTtl;

	private final Duration defaultWaitTime;

	private final String name = "memory-" + count.incrementAndGet();

	private final Map<HoldKey, Hold> holds = new ConcurrentHashMap<>();

	private final Set<MemoryLease> live = ConcurrentHashMap.newKeySet();

	private final AtomicInteger waiters = new AtomicInteger();

	private volatile boolean closed;

	/**
	 * Creates a registry with locks of its own, a default TTL of 30 seconds and a default
	 * wait time of 10 seconds, as the quorum registry's defaults.
	 */
	public InMemoryLockRegistry() {
		this(Duration.ofSeconds(30), Duration.ofSeconds(10));
	}

	/**
	 * Creates a registry with locks of its own.
	 * @param defaultTtl the TTL of {@link #acquire(String)} and of the {@code Lock} views
	 * @param defaultWaitTime the wait time of {@link #acquire(String)}
	 */
	public InMemoryLockRegistry(Duration defaultTtl, Duration defaultWaitTime) {
		this(new MemoryStore(), defaultTtl, defaultWaitTime);
	}

	private InMemoryLockRegistry(MemoryStore store, Duration defaultTtl, Duration defaultWaitTime) {
		checkTtl(defaultTtl);
		checkWaitTime(defaultWaitTime);
		this.store = store;
		this.defaultTtl = defaultTtl;
		this.defaultWaitTime = defaultWaitTime;
	}

	/**
	 * Returns a registry over the same locks, with the same defaults, that stands for
	 * another process: it contends with this one for every key, and a thread's holds in
	 * one do not make it reentrant in the other.
	 * @return a new registry sharing this one's locks
	 */
	public InMemoryLockRegistry anotherProcess() {
		return new InMemoryLockRegistry(this.store, this.defaultTtl, this.defaultWaitTime);
	}

	/**
	 * Returns how many acquisitions through this registry wait for a key now, for a test
	 * that must know a thread waits before it acts.
	 * @return the number of waiting acquisitions
	 */
	public int waiters() {
		return this.waiters.get();
	}

	@Override
	public Lease acquire(String key, Duration ttl, Duration waitTime) throws InterruptedException {
		return acquire(key, ttl, waitTime, false);
	}

	@Override
	public Lease acquire(String key, Duration ttl, Duration waitTime, boolean autoExtend) throws InterruptedException {
		return held(Kind.EXCLUSIVE, key, ttl, waitTime, autoExtend);
	}

	/**
	 * {@inheritDoc} Here: the wait time and one second.
	 */
	@Override
	public Duration decisionBound(Duration waitTime) {
		return waitTime.plusSeconds(1);
	}

	@Override
	public Lease acquire(String key) throws InterruptedException {
		return acquire(key, this.defaultTtl, this.defaultWaitTime);
	}

	@Override
	public Optional<Lease> tryAcquire(String key, Duration ttl) {
		try {
			return Optional.of(acquire(key, ttl, Duration.ZERO));
		}
		catch (LockAcquisitionException ex) {
			return Optional.empty();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
	}

	@Override
	public CompletableFuture<Lease> acquireAsync(String key, Duration ttl, Duration waitTime) {
		return acquireAsync(key, ttl, waitTime, false);
	}

	@Override
	public CompletableFuture<Lease> acquireAsync(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return async(Kind.EXCLUSIVE, key, ttl, waitTime, autoExtend, 0);
	}

	@Override
	public <T extends @Nullable Object> T executeLocked(String key, Duration ttl, Duration waitTime, Callable<T> action)
			throws Exception {
		Objects.requireNonNull(action, "action must not be null");
		Lease lease = acquire(key, ttl, waitTime, true);
		MemoryLease held = ((HeldLease) lease).hold.lease;
		try {
			T result;
			try {
				result = action.call();
			}
			catch (Exception | Error ex) {
				if (!held.isHeld()) {
					ex.addSuppressed(lossCause(held));
				}
				throw ex;
			}
			if (!held.isHeld()) {
				throw lossCause(held);
			}
			return result;
		}
		finally {
			lease.release();
		}
	}

	@Override
	public Lock obtain(String key) {
		return new MemoryLockView(this, key, Kind.EXCLUSIVE);
	}

	@Override
	@SuppressWarnings("NullAway") // held is false without a holder
	public LockInfo inspect(String key) {
		checkOpen();
		KeyLayout.check(key);
		MemoryStore.Snapshot snapshot = this.store.snapshot(key);
		MemoryLease holder = snapshot.holder();
		boolean held = holder != null && holder.isHeld();
		return new LockInfo(key, 1, List.of(new LockInfo.NodeState(MemoryStore.NODE, held ? holder.owner : null,
				held ? holder.holding : null, held ? holder.remainingValidity() : null, snapshot.counter(), null)));
	}

	@Override
	public Lease acquireRead(String key, Duration ttl, Duration waitTime) {
		return acquireRead(key, ttl, waitTime, false);
	}

	@Override
	public Lease acquireRead(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return uninterrupted(Kind.READ, key, ttl, waitTime, autoExtend);
	}

	@Override
	public Lease acquireWrite(String key, Duration ttl, Duration waitTime) {
		return acquireWrite(key, ttl, waitTime, false);
	}

	@Override
	public Lease acquireWrite(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return uninterrupted(Kind.WRITE, key, ttl, waitTime, autoExtend);
	}

	@Override
	public CompletableFuture<Lease> acquireReadAsync(String key, Duration ttl, Duration waitTime) {
		return acquireReadAsync(key, ttl, waitTime, false);
	}

	@Override
	public CompletableFuture<Lease> acquireReadAsync(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return async(Kind.READ, key, ttl, waitTime, autoExtend, 0);
	}

	@Override
	public CompletableFuture<Lease> acquireWriteAsync(String key, Duration ttl, Duration waitTime) {
		return acquireWriteAsync(key, ttl, waitTime, false);
	}

	@Override
	public CompletableFuture<Lease> acquireWriteAsync(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return async(Kind.WRITE, key, ttl, waitTime, autoExtend, 0);
	}

	@Override
	public ReadWriteLock obtainReadWrite(String key) {
		return new ReadWriteView(new MemoryLockView(this, key, Kind.READ), new MemoryLockView(this, key, Kind.WRITE));
	}

	@Override
	public LockSemaphore semaphore(String key, int permits) {
		KeyLayout.check(key);
		if (permits < 1 || permits > 16383) {
			throw new IllegalArgumentException("permits must be between 1 and 16383, was " + permits);
		}
		return new MemorySemaphore(this, key, permits);
	}

	/**
	 * Closes the registry: every acquisition through it fails with an
	 * {@link IllegalStateException}, pending ones too. Held leases are released, but a
	 * lease that work still runs under (kept extended) is lost at once, its listeners are
	 * told, and it keeps its key for one TTL, as a crashed process leaves its locks on
	 * the nodes. Does nothing if closed already.
	 */
	@Override
	public void close() {
		this.closed = true;
		this.store.wakeAll(); // after it, no acquisition through this registry is granted
		for (MemoryLease lease : this.live) {
			if (lease.autoExtended) {
				this.store.lose(lease, "its registry was closed while it was kept extended");
			}
			else {
				lease.release();
			}
		}
		this.live.clear();
	}

	@Override
	public String toString() {
		return "InMemoryLockRegistry[" + this.name + "]";
	}

	// the blocking, thread-reentrant acquisition of every kind but a permit
	Lease held(Kind kind, String key, Duration ttl, Duration waitTime, boolean autoExtend) throws InterruptedException {
		check(key, ttl, waitTime);
		Hold hold = this.holds.get(new HoldKey(Thread.currentThread(), key, kind));
		if (hold != null && hold.lease.isHeld()) {
			hold.count++;
			hold.nested.push(joinNested(hold.lease, ttl, autoExtend));
			return new HeldLease(this, hold);
		}
		refuseWhatThisThreadExcludes(kind, key);
		Hold writing = (kind == Kind.READ) ? peek(Kind.WRITE, key) : null;
		MemoryLease lease = this.store.acquire(new MemoryStore.Request(this, kind, key, ttl, waitTime, autoExtend, 0,
				(writing != null) ? writing.lease : null, () -> false));
		hold = new Hold(new HoldKey(Thread.currentThread(), key, kind), lease);
		this.holds.put(hold.key, hold);
		return new HeldLease(this, hold);
	}

	/**
	 * Makes a nested hold's lease live at least its TTL, kept extended if it asks for it;
	 * returns what its release undoes.
	 */
	private Runnable joinNested(MemoryLease lease, Duration ttl, boolean autoExtend) {
		if (autoExtend && !lease.autoExtended) {
			this.store.keepExtended(lease, true, ttl);
			return () -> this.store.keepExtended(lease, false, lease.ttl);
		}
		if (!lease.autoExtended && lease.remainingValidity().compareTo(ttl) < 0) {
			lease.extend(ttl);
		}
		return () -> {
		};
	}

	private void refuseWhatThisThreadExcludes(Kind kind, String key) {
		String printable = LockKeys.printable(key);
		if (kind == Kind.EXCLUSIVE && (peek(Kind.READ, key) != null || peek(Kind.WRITE, key) != null)) {
			throw heldByThisThread(key, "Lock '" + printable + "' was not acquired: this thread holds the read or"
					+ " write lock of the same key, which the exclusive lock excludes, so it would wait for itself."
					+ " Use the write lock throughout, or release the read or write lock first");
		}
		if (kind == Kind.WRITE && peek(Kind.READ, key) != null) {
			throw heldByThisThread(key, "Write lock '" + printable + "' was not acquired: this thread holds its read"
					+ " lock, and a read lock is never upgraded to a write lock. Release the read lock and then acquire"
					+ " the write lock, or take the write lock from the start");
		}
		if ((kind == Kind.READ || kind == Kind.WRITE) && peek(Kind.EXCLUSIVE, key) != null) {
			throw heldByThisThread(key,
					"The " + kind.name().toLowerCase() + " lock '" + printable + "' was not acquired: this thread"
							+ " holds the exclusive lock of the same key, which excludes readers and writers, so it"
							+ " would wait for itself. Release the exclusive lock first, or use the write lock"
							+ " throughout");
		}
	}

	private static LockAcquisitionException heldByThisThread(String key, String message) {
		return new LockAcquisitionException(Reason.HELD_BY_THIS_THREAD, key, message);
	}

	private @Nullable Hold peek(Kind kind, String key) {
		Hold hold = this.holds.get(new HoldKey(Thread.currentThread(), key, kind));
		return (hold != null && hold.lease.isHeld()) ? hold : null;
	}

	/**
	 * Releases one hold of the current thread, as {@code Lock.unlock()} does.
	 * @throws IllegalMonitorStateException if the thread does not hold the key
	 * @throws LockLostException if this was the last hold and the lease had been lost
	 */
	void unlock(Kind kind, String key) {
		Hold hold = this.holds.get(new HoldKey(Thread.currentThread(), key, kind));
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + LockKeys.printable(key) + "' is not held by thread '"
					+ Thread.currentThread().getName() + "'");
		}
		if (releaseHold(hold) && hold.lease.state == MemoryLease.State.LOST) {
			throw lossCause(hold.lease);
		}
	}

	/**
	 * Counts one hold down; releases the lease (or leaves it until {@code delay} from
	 * now) when it was the last.
	 * @return whether it was the last
	 */
	boolean releaseHold(Hold hold, @Nullable Duration delay) {
		if (--hold.count > 0) {
			hold.nested.pop().run();
			return false;
		}
		this.holds.remove(hold.key, hold);
		if (delay != null) {
			hold.lease.releaseAfter(delay);
		}
		else {
			hold.lease.release();
		}
		return true;
	}

	boolean releaseHold(Hold hold) {
		return releaseHold(hold, null);
	}

	// one acquisition of any kind without blocking a thread of the caller's: not
	// reentrant
	CompletableFuture<Lease> async(Kind kind, String key, Duration ttl, Duration waitTime, boolean autoExtend,
			int permits) {
		check(key, ttl, waitTime);
		CompletableFuture<Lease> future = new CompletableFuture<>();
		MemoryStore.callbacks.execute(() -> {
			try {
				MemoryLease lease = this.store.acquire(new MemoryStore.Request(this, kind, key, ttl, waitTime,
						autoExtend, permits, null, future::isDone));
				if (!future.complete(lease)) {
					lease.release(); // abandoned meanwhile
				}
			}
			catch (CancellationException ex) {
				// abandoned: the future is done already
			}
			catch (InterruptedException ex) {
				future.completeExceptionally(interrupted(key, ex));
			}
			catch (RuntimeException ex) {
				future.completeExceptionally(ex);
			}
		});
		future.whenComplete((lease, ex) -> {
			if (future.isCancelled()) {
				this.store.wakeAll();
			}
		});
		return future;
	}

	// a blocking acquisition for the methods that throw no InterruptedException
	Lease uninterrupted(Kind kind, String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		try {
			return held(kind, key, ttl, waitTime, autoExtend);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw interrupted(key, ex);
		}
	}

	Lease permit(String key, int permits, Duration ttl, Duration waitTime, boolean autoExtend) {
		check(key, ttl, waitTime);
		try {
			return this.store.acquire(new MemoryStore.Request(this, Kind.PERMIT, key, ttl, waitTime, autoExtend,
					permits, null, () -> false));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw interrupted(key, ex);
		}
	}

	int permitsHeld(String key) {
		return this.store.permitsHeld(key);
	}

	private static LockAcquisitionException interrupted(String key, InterruptedException ex) {
		return new LockAcquisitionException("Interrupted while waiting for lock '" + LockKeys.printable(key) + "'", key,
				ex);
	}

	private static LockLostException lossCause(MemoryLease lease) {
		LockLostException cause = lease.lossCause;
		return (cause != null) ? cause : new LockLostException(lease.key, "it ended before the work under it did");
	}

	Duration defaultTtl() {
		return this.defaultTtl;
	}

	String owner() {
		return this.name + ":" + Thread.currentThread().getName();
	}

	/** Records a lease granted through this registry; called under the store's lock. */
	void track(MemoryLease lease) {
		this.live.add(lease);
	}

	void forget(MemoryLease lease) {
		this.live.remove(lease);
	}

	void waiting(int delta) {
		this.waiters.addAndGet(delta);
	}

	void checkNotClosedWhileAcquiring(String key) {
		if (this.closed) {
			throw new IllegalStateException("The LockRegistry was closed while acquiring lock '"
					+ LockKeys.printable(key) + "': no lock is held; acquire through an open registry");
		}
	}

	private void checkOpen() {
		if (this.closed) {
			throw new IllegalStateException("This LockRegistry is closed: no lock can be acquired through it");
		}
	}

	private void check(String key, Duration ttl, Duration waitTime) {
		checkOpen();
		KeyLayout.check(key);
		checkTtl(ttl);
		checkWaitTime(waitTime);
	}

	private static void checkTtl(Duration ttl) {
		if (ttl == null || ttl.isNegative() || ttl.isZero()) {
			throw new IllegalArgumentException("ttl must be positive, was " + Durations.format(ttl));
		}
	}

	private static void checkWaitTime(Duration waitTime) {
		if (waitTime == null || waitTime.isNegative()) {
			throw new IllegalArgumentException("waitTime must be zero or positive, was " + Durations.format(waitTime));
		}
	}

	private record HoldKey(Thread thread, String key, Kind kind) {
	}

	/**
	 * One thread's hold of a lease, counted for reentrancy; touched by that thread only.
	 */
	static final class Hold {

		final HoldKey key;

		final MemoryLease lease;

		int count = 1;

		/** What each nested hold's release undoes, innermost first. */
		final Deque<Runnable> nested = new ArrayDeque<>();

		Hold(HoldKey key, MemoryLease lease) {
			this.key = key;
			this.lease = lease;
		}

	}

	private record ReadWriteView(Lock readLock, Lock writeLock) implements ReadWriteLock {
	}

}
