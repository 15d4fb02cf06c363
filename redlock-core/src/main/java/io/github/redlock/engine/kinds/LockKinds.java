package io.github.redlock.engine.kinds;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockKeys;
import io.github.redlock.LockSemaphore;
import io.github.redlock.engine.LockObserver;
import io.github.redlock.engine.lease.EngineContext;
import io.github.redlock.engine.lease.RedlockLease;
import io.github.redlock.engine.lease.ReentrantLease;
import io.github.redlock.engine.lease.ThreadHolds;
import io.github.redlock.engine.node.KeyLayout;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.quorum.Validity;
import io.github.redlock.engine.waiting.Waiting;
import org.jspecify.annotations.Nullable;

/**
 * Every kind of lock (exclusive, read, write, a semaphore's permits) in every mode
 * (blocking, asynchronous, one try), as the façade hands them on: the checks of the
 * caller's arguments and of the registry's state, the current thread's reentrant holds of
 * the blocking API, and the {@link Observing observer}.
 * <p>
 * <b>Invariants.</b> Every acquisition is checked before anything else happens to it
 * (nothing is observed, queued or sent for a refused one). A thread's hold of a key is
 * joined, not acquired again, for the same kind; a thread's own hold of another kind that
 * excludes the one asked for refuses it at once ({@link HeldByThisThreadException}):
 * waiting would be for itself. A read lock is never upgraded to the write lock; a
 * writer's thread may take the read lock (a downgrade).
 *
 * @author redlock contributors
 */
public final class LockKinds {

	/**
	 * The scripts a lock call of any kind may send, as each kind declares them: loaded on
	 * every (re)connect, so that a node that restarted knows them before the next call.
	 */
	public static final List<Script> SCRIPTS = Stream
		.of(ExclusiveAcquisition.SCRIPTS, ReadWriteLocks.SCRIPTS, PermitSemaphore.SCRIPTS)
		.flatMap(List::stream)
		.toList();

	private final EngineContext engine;

	private final Observing observing;

	private final ReadWriteLocks readWrite;

	/**
	 * The waiting lines of semaphores, apart from the locks' lines (a semaphore and a
	 * lock may share a key), with release hints of their own.
	 */
	private final Waiting permitLines;

	/** The current threads' exclusive locks. */
	private final ThreadHolds holds = new ThreadHolds();

	/** The current threads' read locks. */
	private final ThreadHolds readHolds = new ThreadHolds();

	/** The current threads' write locks. */
	private final ThreadHolds writeHolds = new ThreadHolds();

	/**
	 * Creates the kinds of one registry.
	 * @param engine what acquisitions and leases share
	 * @param observing the registry's observer
	 * @param permitLines the semaphores' waiting lines
	 */
	public LockKinds(EngineContext engine, Observing observing, Waiting permitLines) {
		this.engine = engine;
		this.observing = observing;
		this.permitLines = permitLines;
		this.readWrite = new ReadWriteLocks(engine);
	}

	/**
	 * Checks an acquisition's arguments and the registry's state.
	 * @throws IllegalStateException if the registry is stopped or closed
	 * @throws IllegalArgumentException for a key, TTL or wait time that cannot work
	 */
	public void check(String key, Duration ttl, Duration waitTime) {
		this.engine.leases().checkRunning();
		KeyLayout.check(key);
		this.engine.checkTtl(ttl);
		EngineContext.checkWaitTime(waitTime);
	}

	/**
	 * Acquires the exclusive lock, blocking, or joins the current thread's hold of it.
	 * @return the lease, a {@link ReentrantLease}
	 */
	public Lease exclusive(String key, Duration ttl, Duration waitTime, boolean autoExtend)
			throws InterruptedException {
		check(key, ttl, waitTime);
		ThreadHolds.Hold hold = this.holds.reenter(key);
		if (hold == null) {
			refuseIfReadingOrWriting(key);
		}
		if (!this.observing.isOn()) {
			// no observer: no callbacks to make for it on every acquisition
			return exclusiveLease(key, ttl, waitTime, autoExtend, hold);
		}
		return this.observing.blocking(key, ttl, waitTime, LockObserver.Kind.EXCLUSIVE, hold != null, () -> {
			if (hold != null) {
				this.holds.undoReenter(hold);
			}
		}, () -> exclusiveLease(key, ttl, waitTime, autoExtend, hold));
	}

	private Lease exclusiveLease(String key, Duration ttl, Duration waitTime, boolean autoExtend,
			ThreadHolds.@Nullable Hold reentered) throws InterruptedException {
		if (reentered != null) {
			joinHeld(this.holds, reentered, ttl, autoExtend);
			return new ReentrantLease(this.holds, reentered);
		}
		RedlockLease lease = AcquisitionAwait.await(ExclusiveAcquisition.start(this.engine, key, ttl, waitTime), key,
				this.engine.decisionBoundNanos(waitTime));
		ThreadHolds.Hold hold = this.holds.first(lease);
		if (autoExtend) {
			lease.autoExtend(ttl); // for as long as the lease lives
		}
		return new ReentrantLease(this.holds, hold);
	}

	/**
	 * Acquires the exclusive lock asynchronously.
	 */
	public CompletableFuture<Lease> exclusiveAsync(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		check(key, ttl, waitTime);
		return this.observing.async(key, ttl, waitTime, autoExtend, LockObserver.Kind.EXCLUSIVE,
				() -> ExclusiveAcquisition.start(this.engine, key, ttl, waitTime));
	}

	/**
	 * Acquires a read lock, blocking, or joins the current thread's hold of it.
	 * @throws LockAcquisitionException if it could not be acquired in time, or the thread
	 * was interrupted while waiting (its interrupted status is set again)
	 */
	public Lease read(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		check(key, ttl, waitTime);
		return observed(key, ttl, waitTime, LockObserver.Kind.READ, this.readHolds,
				() -> uninterrupted(key, () -> readLease(key, ttl, waitTime, autoExtend)));
	}

	/**
	 * Acquires the write lock, blocking, or joins the current thread's hold of it.
	 * @throws LockAcquisitionException if it could not be acquired in time, if the thread
	 * holds the read lock, or if it was interrupted while waiting
	 */
	public Lease write(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		check(key, ttl, waitTime);
		return observed(key, ttl, waitTime, LockObserver.Kind.WRITE, this.writeHolds,
				() -> uninterrupted(key, () -> writeLease(key, ttl, waitTime, autoExtend)));
	}

	/**
	 * Acquires a read lock asynchronously.
	 */
	public CompletableFuture<Lease> readAsync(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		check(key, ttl, waitTime);
		return this.observing.async(key, ttl, waitTime, autoExtend, LockObserver.Kind.READ,
				() -> this.readWrite.read(key, ttl, waitTime, null));
	}

	/**
	 * Acquires the write lock asynchronously.
	 */
	public CompletableFuture<Lease> writeAsync(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		check(key, ttl, waitTime);
		return this.observing.async(key, ttl, waitTime, autoExtend, LockObserver.Kind.WRITE,
				() -> this.readWrite.write(key, ttl, waitTime));
	}

	/**
	 * Returns a {@link Lock} view of the exclusive lock of a key.
	 */
	public Lock lock(String key) {
		KeyLayout.check(key);
		return new LockView(this.engine.settings().defaultTtl(), this.holds, key, this::exclusive, "DistributedLock");
	}

	/**
	 * Returns a {@link ReadWriteLock} view of the read and write locks of a key.
	 */
	public ReadWriteLock readWriteLock(String key) {
		KeyLayout.check(key);
		Duration ttl = this.engine.settings().defaultTtl();
		return new ReadWriteView(new LockView(ttl, this.readHolds, key, this::readLease, "DistributedReadLock"),
				new LockView(ttl, this.writeHolds, key, this::writeLease, "DistributedWriteLock"));
	}

	/**
	 * Returns a semaphore of {@code permits} on a key.
	 */
	public LockSemaphore semaphore(String key, int permits) {
		this.engine.leases().checkOpen();
		return new PermitSemaphore(this.observing, this.engine, this.permitLines, key, permits);
	}

	private Lease observed(String key, Duration ttl, Duration waitTime, LockObserver.Kind kind, ThreadHolds holds,
			Supplier<Lease> acquisition) {
		return this.observing.uninterruptible(key, ttl, waitTime, kind, () -> holds.peek(key) != null, acquisition);
	}

	/**
	 * Joins the lease the current thread holds: at once, with no waiting. The nested
	 * hold's TTL is honoured: when the lease has less validity left than a fresh
	 * acquisition of that TTL could guarantee after its round trips (its validity less
	 * three of its call timeouts, {@link Validity#callTimeoutNanos}), it is extended to
	 * the TTL first. The nested hold's auto-extension lasts until it is released.
	 * @throws LockAcquisitionException if the lease could not be extended to the TTL
	 */
	private void joinHeld(ThreadHolds holds, ThreadHolds.Hold hold, Duration ttl, boolean autoExtend) {
		RedlockLease lease = hold.lease();
		Validity validity = this.engine.validity();
		long promised = validity.validUntil(0, ttl.toNanos()) - 3 * validity.callTimeoutNanos(ttl.toNanos());
		RedlockLease.ExtendOutcome outcome;
		try {
			outcome = (lease.remainingValidity().toNanos() < promised) ? lease.extendNow(ttl) : null;
			if (outcome == null || outcome.extended()) {
				hold.enterNested(autoExtend ? lease.autoExtend(ttl) : () -> {
				});
				return;
			}
		}
		catch (RuntimeException | Error ex) {
			// such as an interrupt while extending: the nested hold was counted by
			// reenter, and only a hold that is returned is ever released
			holds.undoReenter(hold);
			throw ex;
		}
		holds.undoReenter(hold);
		throw new LockAcquisitionException(lease.key(), Duration.ZERO, 1, outcome.agreed(),
				this.engine.fleet().quorum(), this.engine.fleet().size(), List.of(),
				"this thread holds it, but it could not be extended to the " + ttl.toMillis()
						+ "ms ttl the nested acquire asked for: " + outcome.failure());
	}

	private Lease readLease(String key, Duration ttl, Duration waitTime, boolean autoExtend)
			throws InterruptedException {
		check(key, ttl, waitTime);
		ThreadHolds.Hold reentered = this.readHolds.reenter(key);
		if (reentered != null) {
			joinHeld(this.readHolds, reentered, ttl, autoExtend);
			return new ReentrantLease(this.readHolds, reentered);
		}
		refuseIfExclusive(key, "read");
		ThreadHolds.Hold writing = this.writeHolds.peek(key);
		String writerSecret = (writing != null) ? LockValues.secret(writing.lease().value()) : null;
		RedlockLease lease = AcquisitionAwait.await(this.readWrite.read(key, ttl, waitTime, writerSecret), key,
				this.engine.decisionBoundNanos(waitTime));
		ThreadHolds.Hold hold = this.readHolds.first(lease);
		if (autoExtend) {
			lease.autoExtend(ttl);
		}
		return new ReentrantLease(this.readHolds, hold);
	}

	private Lease writeLease(String key, Duration ttl, Duration waitTime, boolean autoExtend)
			throws InterruptedException {
		check(key, ttl, waitTime);
		ThreadHolds.Hold reentered = this.writeHolds.reenter(key);
		if (reentered != null) {
			joinHeld(this.writeHolds, reentered, ttl, autoExtend);
			return new ReentrantLease(this.writeHolds, reentered);
		}
		if (this.readHolds.peek(key) != null) {
			throw new HeldByThisThreadException(key, "Write lock '" + LockKeys.printable(key)
					+ "' was not acquired: this thread holds its read lock, and a read lock is never upgraded to a"
					+ " write lock, since two readers that both waited to write would each wait for the other to"
					+ " leave, forever. Release the read lock and then acquire the write lock (and read again under"
					+ " it: the data may have changed in between), or take the write lock from the start");
		}
		refuseIfExclusive(key, "write");
		RedlockLease lease = AcquisitionAwait.await(this.readWrite.write(key, ttl, waitTime), key,
				this.engine.decisionBoundNanos(waitTime));
		ThreadHolds.Hold hold = this.writeHolds.first(lease);
		if (autoExtend) {
			lease.autoExtend(ttl);
		}
		return new ReentrantLease(this.writeHolds, hold);
	}

	/**
	 * Refuses a read or write lock to a thread that holds the exclusive lock of the key,
	 * which excludes both: it would wait for itself.
	 */
	private void refuseIfExclusive(String key, String mode) {
		if (this.holds.peek(key) != null) {
			throw new HeldByThisThreadException(key, "The " + mode + " lock '" + LockKeys.printable(key)
					+ "' was not acquired: this thread holds the exclusive lock of the same key, which excludes"
					+ " readers and writers, so it would wait for itself. Release the exclusive lock first, or use"
					+ " the write lock throughout (a write lock may take a read lock too)");
		}
	}

	/**
	 * Refuses the exclusive lock to a thread that holds a read or write lock of the key,
	 * which the exclusive lock excludes: it would wait for itself.
	 */
	private void refuseIfReadingOrWriting(String key) {
		if (this.readHolds.peek(key) != null || this.writeHolds.peek(key) != null) {
			throw new HeldByThisThreadException(key,
					"Lock '" + LockKeys.printable(key)
							+ "' was not acquired: this thread holds the read or write lock of the same key, which the"
							+ " exclusive lock excludes, so it would wait for itself. Use the write lock throughout, or"
							+ " release the read or write lock first");
		}
	}

	/**
	 * Runs an acquisition for a method that throws no {@link InterruptedException}: an
	 * interrupt becomes a {@link LockAcquisitionException}, with the interrupted status
	 * set again.
	 */
	private static Lease uninterrupted(String key, LeaseCall call) {
		try {
			return call.call();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockAcquisitionException(
					"Lock '" + LockKeys.printable(key) + "' was not acquired: the thread was interrupted while waiting",
					key, ex);
		}
	}

	@FunctionalInterface
	private interface LeaseCall {

		Lease call() throws InterruptedException;

	}

}
