package io.github.redlock.integration;

import java.time.Duration;
import java.time.Instant;
import java.util.ConcurrentModificationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redlock.Durations;
import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockKeys;
import io.github.redlock.LockLostException;
import io.github.redlock.LockRegistry;
import io.github.redlock.RedlockException;
import io.github.redlock.engine.RedlockRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * Spring Integration's lock registry over a redlock {@link LockRegistry}: every
 * acquisition goes through the quorum of nodes and gets a fencing token, so the locks
 * hold across processes and survive a minority of nodes failing. It works wherever Spring
 * Integration takes a lock registry: {@code LockRegistryLeaderInitiator}, aggregators,
 * idempotent receivers, file inbound adapters.
 *
 * <pre class="code">
 * RedlockLockRegistry locks = new RedlockLockRegistry(redlockRegistry, Duration.ofSeconds(10));
 * LockRegistryLeaderInitiator leader = new LockRegistryLeaderInitiator(locks, candidate);
 * </pre>
 * <p>
 * It behaves as Spring Integration's {@code RedisLockRegistry} and
 * {@code JdbcLockRegistry} do in 7.x:
 * <ul>
 * <li>Keys are {@code String}s; any other key is refused with an
 * {@link IllegalArgumentException} naming its type. A key is the very key that the
 * redlock registry takes, so {@code obtain("report")} and {@code acquire("report", ...)}
 * contend.
 * <li>Locks are reentrant per thread, through a local {@link ReentrantLock} in front of
 * the quorum: another thread of this process waits on the local lock, another process on
 * the quorum.
 * <li>Leases are bounded by the TTL (the constructor's, or the one given to
 * {@link DistributedLock#lock(Duration)} and
 * {@link DistributedLock#tryLock(Duration, Duration)}) and are not kept alive in the
 * background. Every acquisition by a thread that already holds the lock refreshes the
 * lease to its TTL on a quorum: {@code LockRegistryLeaderInitiator} re-enters
 * {@code tryLock} every heartbeat, and this is what keeps its leader leading. A leader
 * whose process stalls (a long GC pause, a stuck candidate callback, a frozen VM) stops
 * refreshing and loses the lock once the TTL has passed, so another instance can take
 * over; a watchdog that kept the lease alive from another thread would keep a stalled
 * leader in place forever. {@link #renewLock(Object)} refreshes it explicitly, and
 * {@link #setRenewalTaskScheduler(TaskScheduler)} turns on renewal every third of the TTL
 * on the given scheduler for code that holds a lock longer than its TTL.
 * <li>{@code unlock()} by a thread that does not hold the lock throws
 * {@link IllegalMonitorStateException}, as {@link ReentrantLock} and
 * {@code JdbcLockRegistry} do ({@code RedisLockRegistry} throws an
 * {@code IllegalStateException}; {@code Lock}'s own convention wins here).
 * <li>The last {@code unlock()} of a lock whose lease expired or was lost meanwhile
 * releases it all the same and throws {@link ConcurrentModificationException}, as both
 * Spring Integration registries do, with the {@link LockLostException} that says why as
 * its cause: the integrity of the data the lock protected may have been compromised.
 * <li>{@code lock()} and {@code lock(Duration)} wait for as long as it takes, also while
 * no quorum of nodes answers, and cannot be interrupted (the interrupt flag is restored
 * when they return); {@code lockInterruptibly()} and the timed {@code tryLock} methods
 * throw {@link InterruptedException} with the flag cleared, as
 * {@link java.util.concurrent.locks.Lock} specifies (also when it was set on entry).
 * {@code tryLock()} is not interruptible either: it makes its one attempt and keeps the
 * flag. {@code tryLock} returns {@code false} when the lock is held elsewhere at the end
 * of its wait time; when the wait time ends for want of usable nodes (no quorum, or nodes
 * that answered too late), it throws {@link CannotAcquireLockException} with the
 * {@link LockAcquisitionException} that says why as its cause, as
 * {@code RedisLockRegistry} does when Redis cannot be reached, so that an outage is not
 * taken for a busy lock. A wait time of zero or less is one attempt.
 * <li>{@code newCondition()} throws {@link UnsupportedOperationException}.
 * </ul>
 * <p>
 * Where it goes further, on purpose:
 * <ul>
 * <li>A lease that was lost is never taken over silently. {@code RedisLockRegistry} and
 * {@code JdbcLockRegistry} let a re-entering acquisition re-create an expired lock
 * record, so a leader that stalled past its TTL carries on as if it had led throughout,
 * while another instance may have led meanwhile. Here a re-entering acquisition that
 * finds the thread's lease lost fails ({@code tryLock} returns {@code false},
 * {@code lock()} throws {@link CannotAcquireLockException}), which revokes a leader's
 * leadership, and the thread's holds end; its remaining {@code unlock()} calls throw the
 * {@link ConcurrentModificationException} of the loss, and its next acquisition is a new
 * one through the quorum, with a new fencing token.
 * <li>Every lock is a {@link FencedLock}: {@link FencedLock#fencingToken()} gives the
 * token of the lease it holds now.
 * <li>A lock dropped by {@link #expireUnusedOlderThan(long)} while code still holds a
 * reference to it keeps working, since exclusion comes from the quorum, not from the
 * local object ({@code RedisLockRegistry} throws for such an evicted lock, which would
 * stop a {@code LockRegistryLeaderInitiator} from ever leading again).
 * </ul>
 * <p>
 * Longer than the size target: it is Spring Integration's three lock contracts
 * ({@code ExpirableLockRegistry}, {@code RenewableLockRegistry} and the
 * {@code DistributedLock} of each key) over one map of locks, whose reentrancy, lease
 * refresh and renewal rules the Javadoc above states as one behaviour; most of its length
 * is that Javadoc.
 *
 * @author redlock contributors
 * @see FencedLock
 */
public final class RedlockLockRegistry
		implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {

	/**
	 * TTL of the leases when the constructor is given none and the registry is not a
	 * {@link RedlockRegistry} whose default TTL could be used instead.
	 */
	public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);

	/** How long {@code lock()} waits at a time: as good as forever. */
	private static final Duration FOREVER = Duration.ofDays(365);

	/** Pause between two attempts to refresh a lease that a quorum did not confirm. */
	private static final long REFRESH_PAUSE_MILLIS = 50;

	/**
	 * Pause before acquiring again when the registry gave up before the wait time was
	 * spent (fewer usable nodes than a quorum), as Spring Integration's registries pause
	 * between attempts.
	 */
	private static final long RETRY_PAUSE_MILLIS = 100;

	private static final Log logger = LogFactory.getLog(RedlockLockRegistry.class);

	private final LockRegistry registry;

	private final Duration ttl;

	private final ConcurrentHashMap<String, RedlockLock> locks = new ConcurrentHashMap<>();

	private volatile @Nullable TaskScheduler renewalTaskScheduler;

	/**
	 * Creates a registry whose leases live for the redlock registry's default TTL
	 * ({@code redlock.default-ttl}) when it is a {@link RedlockRegistry}, else for
	 * {@link #DEFAULT_TTL}.
	 * @param registry the redlock registry to acquire through
	 */
	public RedlockLockRegistry(LockRegistry registry) {
		this(registry, defaultTtl(registry));
	}

	/**
	 * Creates a registry whose leases live for {@code ttl} unless an acquisition asks for
	 * another. A {@code LockRegistryLeaderInitiator}'s heartbeat must be well below it:
	 * the TTL is how long a stalled leader keeps the lock before another instance can
	 * lead.
	 * @param registry the redlock registry to acquire through
	 * @param ttl the leases' time to live, at most the registry's maximum TTL
	 * ({@code redlock.max-ttl})
	 * @throws IllegalArgumentException if the registry is {@code null} or the TTL is not
	 * positive or above the registry's maximum TTL
	 */
	public RedlockLockRegistry(LockRegistry registry, Duration ttl) {
		if (registry == null) {
			throw new IllegalArgumentException(
					"registry must not be null: pass the io.github.redlock.LockRegistry to acquire through");
		}
		checkTtl(ttl, "ttl");
		if (registry instanceof RedlockRegistry redlock && ttl.compareTo(redlock.settings().maxTtl()) > 0) {
			throw new IllegalArgumentException("ttl " + Durations.format(ttl) + " is above the registry's maximum TTL "
					+ Durations.format(redlock.settings().maxTtl())
					+ ": lower the ttl (a leader initiator's heartbeat refreshes the lease) or raise redlock.max-ttl");
		}
		this.registry = registry;
		this.ttl = ttl;
	}

	private static Duration defaultTtl(LockRegistry registry) {
		return (registry instanceof RedlockRegistry redlock) ? redlock.settings().defaultTtl() : DEFAULT_TTL;
	}

	/**
	 * Returns the lock of a key, the same object for as long as it is not dropped by
	 * {@link #expireUnusedOlderThan(long)}.
	 * @param lockKey the key, a {@code String}
	 * @return the lock
	 * @throws IllegalArgumentException if the key is not a {@code String}
	 */
	@Override
	public FencedLock obtain(Object lockKey) {
		String key = key(lockKey);
		return this.locks.computeIfAbsent(key, RedlockLock::new);
	}

	/**
	 * Drops the local lock objects last used more than {@code age} milliseconds ago that
	 * no thread holds now, so that a registry of many short-lived keys does not grow
	 * without bound. Nothing changes on the nodes.
	 * @param age the least time since a lock was last acquired, refreshed or released, in
	 * milliseconds
	 */
	@Override
	public void expireUnusedOlderThan(long age) {
		long now = System.currentTimeMillis();
		this.locks.values().removeIf((lock) -> now - lock.lastUsed >= age && !lock.local.isLocked());
	}

	/**
	 * Refreshes the lease of a lock the current thread holds to the registry's TTL, on a
	 * quorum of nodes.
	 * @param lockKey the key, a {@code String}
	 * @throws IllegalArgumentException if the key is not a {@code String}
	 * @throws IllegalStateException if the current thread does not hold the lock (as
	 * {@code RedisLockRegistry} and {@code JdbcLockRegistry} throw), or no quorum
	 * confirmed the refresh, saying whether the lease is still valid or was lost
	 */
	@Override
	public void renewLock(Object lockKey) {
		renewLock(lockKey, this.ttl);
	}

	/**
	 * Refreshes the lease of a lock the current thread holds so that it lives {@code ttl}
	 * from now, on a quorum of nodes.
	 * @param lockKey the key, a {@code String}
	 * @param ttl the new time to live, at most the registry's maximum TTL
	 * @throws IllegalArgumentException if the key is not a {@code String} or the TTL is
	 * not positive or too long
	 * @throws IllegalStateException if the current thread does not hold the lock (as
	 * {@code RedisLockRegistry} and {@code JdbcLockRegistry} throw), or no quorum
	 * confirmed the refresh, saying whether the lease is still valid or was lost
	 */
	@Override
	public void renewLock(Object lockKey, Duration ttl) {
		String key = key(lockKey);
		checkTtl(ttl, "ttl");
		RedlockLock lock = this.locks.get(key);
		if (lock == null || !lock.local.isHeldByCurrentThread()) {
			throw new IllegalStateException("Cannot renew lock '" + LockKeys.printable(key) + "': thread '"
					+ Thread.currentThread().getName() + "' does not hold it; lock it first, on the same thread");
		}
		lock.renew(ttl);
	}

	/**
	 * Keeps every lease acquired from now on alive by refreshing it every third of its
	 * TTL on the given scheduler, until it is unlocked or lost, as
	 * {@code RedisLockRegistry} does. Leave it unset for leader election: the heartbeat
	 * refreshes the leader's lease, and a stalled leader must lose it.
	 * @param renewalTaskScheduler the scheduler to renew on
	 */
	@Override
	public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
		if (renewalTaskScheduler == null) {
			throw new IllegalArgumentException("renewalTaskScheduler must not be null");
		}
		this.renewalTaskScheduler = renewalTaskScheduler;
	}

	/**
	 * Returns the TTL of leases acquired without one.
	 * @return the default TTL
	 */
	public Duration getTtl() {
		return this.ttl;
	}

	@Override
	public String toString() {
		return "RedlockLockRegistry{ttl=" + Durations.format(this.ttl) + ", registry=" + this.registry + "}";
	}

	private static String key(Object lockKey) {
		if (lockKey instanceof String key) {
			return key;
		}
		throw new IllegalArgumentException("RedlockLockRegistry keys must be Strings, got "
				+ ((lockKey != null) ? "a " + lockKey.getClass().getName() : "null")
				+ ": pass the key as a String, for example String.valueOf(key)");
	}

	private static void checkTtl(Duration ttl, String name) {
		if (ttl == null || ttl.isNegative() || ttl.isZero()) {
			throw new IllegalArgumentException(name + " must be positive, was " + Durations.format(ttl));
		}
	}

	private static Duration bounded(Duration waitTime) {
		if (waitTime == null || waitTime.isNegative()) {
			return Duration.ZERO;
		}
		return (waitTime.compareTo(FOREVER) > 0) ? FOREVER : waitTime;
	}

	/** What an acquisition came to. */
	private enum Outcome {

		/** The lock is held: acquired anew, or re-entered with its lease refreshed. */
		HELD,

		/** Not acquired in time: held elsewhere, or no quorum agreed. */
		BUSY,

		/** A re-entering acquisition found the thread's lease lost; its holds ended. */
		LOST

	}

	/**
	 * The holds a thread had on a lease that was lost, still to be reported by its
	 * remaining {@code unlock()} calls.
	 */
	private static final class Abandoned {

		private final AtomicInteger remaining;

		private final LockLostException cause;

		Abandoned(int remaining, LockLostException cause) {
			this.remaining = new AtomicInteger(remaining);
			this.cause = cause;
		}

	}

	/**
	 * One key's lock: a local reentrant lock in front of a lease on the quorum.
	 */
	private final class RedlockLock implements FencedLock {

		private final String key;

		private final ReentrantLock local = new ReentrantLock();

		/** Threads whose lease was lost while they held the lock more than once. */
		private final ConcurrentHashMap<Thread, Abandoned> abandoned = new ConcurrentHashMap<>();

		/** The lease of the holding thread; written only by it. */
		private volatile @Nullable Lease lease;

		private volatile @Nullable Duration leaseTtl;

		private volatile @Nullable LockLostException lossCause;

		private volatile @Nullable ScheduledFuture<?> renewal;

		private volatile long lastUsed = System.currentTimeMillis();

		RedlockLock(String key) {
			this.key = key;
		}

		@Override
		public String getKey() {
			return this.key;
		}

		@Override
		public void lock() {
			lock(RedlockLockRegistry.this.ttl);
		}

		@Override
		public void lock(Duration ttl) {
			checkTtl(ttl, "ttl");
			boolean interrupted = false;
			try {
				while (true) {
					this.local.lock();
					try {
						Outcome outcome = enter(ttl, deadline(FOREVER));
						if (outcome == Outcome.HELD) {
							return;
						}
						if (outcome == Outcome.LOST) {
							throw lostOnReentry();
						}
					}
					catch (InterruptedException ex) {
						// lock() cannot be interrupted: the flag, cleared by the throw,
						// is restored on the way out
						interrupted = true;
					}
				}
			}
			finally {
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
		}

		@Override
		public void lockInterruptibly() throws InterruptedException {
			while (true) {
				this.local.lockInterruptibly();
				Outcome outcome = enter(RedlockLockRegistry.this.ttl, deadline(FOREVER));
				if (outcome == Outcome.HELD) {
					return;
				}
				if (outcome == Outcome.LOST) {
					throw lostOnReentry();
				}
			}
		}

		@Override
		public boolean tryLock() {
			// not interruptible: an interrupted thread makes its attempt all the same
			boolean interrupted = Thread.interrupted();
			try {
				return tryLock(Duration.ZERO, RedlockLockRegistry.this.ttl);
			}
			catch (InterruptedException ex) {
				interrupted = true; // interrupted during the attempt, which is abandoned
				return false;
			}
			finally {
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
		}

		@Override
		public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
			return tryLock(Duration.ofNanos(unit.toNanos(Math.max(0, time))), RedlockLockRegistry.this.ttl);
		}

		@Override
		public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
			checkTtl(ttl, "ttl");
			Duration wait = bounded(waitTime);
			long deadline = deadline(wait);
			// throws with the flag cleared, as Lock specifies, also when set on entry
			boolean locked = this.local.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS);
			return locked && enter(ttl, deadline) == Outcome.HELD;
		}

		/**
		 * Acquires or refreshes the lease once the current thread holds the local lock.
		 * Unless the outcome is {@link Outcome#HELD}, the local hold taken for this call
		 * has been given back (and for {@link Outcome#LOST}, every hold of the thread).
		 */
		private Outcome enter(Duration ttl, long deadline) throws InterruptedException {
			return (this.local.getHoldCount() == 1) ? acquire(ttl, deadline) : refresh(ttl, deadline);
		}

		private Outcome acquire(Duration ttl, long deadline) throws InterruptedException {
			Lease acquired = null;
			try {
				while (acquired == null) {
					try {
						acquired = RedlockLockRegistry.this.registry.acquire(this.key, ttl, remaining(deadline));
					}
					catch (LockAcquisitionException ex) {
						// the registry gives up early when too few nodes are usable: wait
						// out the wait time all the same, without spinning
						long left = deadline - System.nanoTime();
						if (left <= 0 && unavailable(ex)) {
							// the catch below gives the local hold back
							throw new CannotAcquireLockException(
									"Failed to lock '" + LockKeys.printable(this.key) + "': " + ex.getMessage(), ex);
						}
						if (left <= 0) {
							this.local.unlock();
							if (logger.isDebugEnabled()) {
								logger.debug(
										"Lock '" + LockKeys.printable(this.key) + "' not acquired: " + ex.getMessage());
							}
							return Outcome.BUSY;
						}
						Thread.sleep(Math.min(RETRY_PAUSE_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
					}
				}
			}
			catch (InterruptedException ex) {
				this.local.unlock();
				throw ex; // the flag stays cleared, as Lock specifies
			}
			catch (RuntimeException | Error ex) {
				this.local.unlock();
				throw ex;
			}
			held(acquired, ttl);
			return Outcome.HELD;
		}

		private static boolean unavailable(LockAcquisitionException ex) {
			return ex.getReason() == LockAcquisitionException.Reason.NO_QUORUM
					|| ex.getReason() == LockAcquisitionException.Reason.VALIDITY_EXHAUSTED;
		}

		private void held(Lease acquired, Duration ttl) {
			this.abandoned.remove(Thread.currentThread());
			this.lossCause = null;
			this.leaseTtl = ttl;
			this.lease = acquired;
			acquired.addListener((lost, cause) -> {
				if (this.lease == acquired) {
					this.lossCause = cause;
				}
			});
			this.lastUsed = System.currentTimeMillis();
			startRenewal(acquired, ttl);
		}

		/**
		 * Refreshes the lease that the thread holds to {@code ttl}: the heartbeat of a
		 * re-entering acquisition. Retries until the deadline while the lease is valid
		 * but no quorum confirmed; gives up every hold once the lease is lost.
		 */
		private Outcome refresh(Duration ttl, long deadline) throws InterruptedException {
			Lease held = this.lease;
			try {
				while (true) {
					if (held == null || !held.isHeld()) {
						abandon(held);
						return Outcome.LOST;
					}
					if (extend(held, ttl)) {
						this.leaseTtl = ttl;
						this.lastUsed = System.currentTimeMillis();
						return Outcome.HELD;
					}
					long left = deadline - System.nanoTime();
					if (left <= 0) {
						this.local.unlock();
						return Outcome.BUSY;
					}
					Thread.sleep(Math.min(REFRESH_PAUSE_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
				}
			}
			catch (InterruptedException ex) {
				this.local.unlock();
				throw ex; // the flag stays cleared, as Lock specifies
			}
			catch (RuntimeException | Error ex) {
				this.local.unlock();
				throw ex;
			}
		}

		/**
		 * Extends the lease, turning an interrupt during the round trip into an
		 * {@link InterruptedException}.
		 */
		private boolean extend(Lease held, Duration ttl) throws InterruptedException {
			try {
				return held.extend(ttl);
			}
			catch (RedlockException ex) {
				if (Thread.interrupted()) {
					InterruptedException interrupted = new InterruptedException(
							"Interrupted while refreshing lock '" + LockKeys.printable(this.key) + "'");
					interrupted.initCause(ex);
					throw interrupted;
				}
				throw ex;
			}
		}

		/**
		 * Ends every hold of the current thread on a lease that was lost: the loss is
		 * reported to the re-entering caller now, and to each outer hold by its
		 * {@code unlock()}.
		 */
		private void abandon(@Nullable Lease lost) {
			int outer = this.local.getHoldCount() - 1;
			LockLostException cause = lossOf(lost);
			stopRenewal();
			this.lease = null;
			release(lost);
			while (this.local.isHeldByCurrentThread()) {
				this.local.unlock();
			}
			this.abandoned.keySet().removeIf((thread) -> !thread.isAlive());
			this.abandoned.put(Thread.currentThread(), new Abandoned(outer, cause));
			logger.warn("Lock '" + LockKeys.printable(this.key) + "' was lost while thread '"
					+ Thread.currentThread().getName() + "' held it " + outer
					+ " time(s); a re-entering acquisition reports it and the thread no longer holds it: "
					+ cause.getMessage());
		}

		private CannotAcquireLockException lostOnReentry() {
			Abandoned lost = this.abandoned.get(Thread.currentThread());
			LockLostException cause = (lost != null) ? lost.cause : lossOf(null);
			return new CannotAcquireLockException(
					"Cannot re-enter lock '" + LockKeys.printable(this.key)
							+ "': its lease was lost while this thread held it, and the thread no longer holds it",
					cause);
		}

		@Override
		public void unlock() {
			if (!this.local.isHeldByCurrentThread()) {
				Thread thread = Thread.currentThread();
				Abandoned lost = this.abandoned.get(thread);
				if (lost != null) {
					if (lost.remaining.decrementAndGet() <= 0) {
						this.abandoned.remove(thread, lost);
					}
					throw new ConcurrentModificationException(lost.cause.getMessage(), lost.cause);
				}
				throw new IllegalMonitorStateException(
						"Lock '" + LockKeys.printable(this.key) + "' is not held by thread '" + thread.getName()
								+ "': unlock() must be called by the thread that locked it");
			}
			if (this.local.getHoldCount() > 1) {
				this.lastUsed = System.currentTimeMillis();
				this.local.unlock();
				return;
			}
			Lease held = this.lease;
			try {
				stopRenewal();
				this.lease = null;
				boolean valid = held != null && held.isHeld();
				LockLostException cause = valid ? null : lossOf(held);
				release(held);
				if (cause != null) {
					throw new ConcurrentModificationException(cause.getMessage(), cause);
				}
			}
			finally {
				this.lastUsed = System.currentTimeMillis();
				this.local.unlock();
			}
		}

		void renew(Duration ttl) {
			Lease held = this.lease;
			boolean renewed;
			try {
				renewed = held != null && extend(held, ttl);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(
						"Interrupted while renewing lock '" + LockKeys.printable(this.key) + "'", ex);
			}
			if (!renewed) {
				String why = (held != null && held.isHeld())
						? "no quorum of nodes confirmed it in time; the lease stays valid for another "
								+ Durations.format(held.remainingValidity()) + ": retry, or unlock and stop the work"
						: lossOf(held).getMessage();
				throw new IllegalStateException("Could not renew lock '" + LockKeys.printable(this.key) + "' to "
						+ Durations.format(ttl) + ": " + why);
			}
			this.leaseTtl = ttl;
			this.lastUsed = System.currentTimeMillis();
		}

		private LockLostException lossOf(@Nullable Lease lost) {
			LockLostException known = this.lossCause;
			if (known != null) {
				return known;
			}
			Duration ttl = this.leaseTtl;
			return new LockLostException(this.key,
					"its lease" + ((ttl != null) ? " of " + Durations.format(ttl) : "")
							+ " ran out before it was refreshed or unlocked (re-enter tryLock as a heartbeat, call"
							+ " renewLock, or set a renewal task scheduler)");
		}

		private void release(@Nullable Lease held) {
			if (held == null) {
				return;
			}
			try {
				held.release();
			}
			catch (RuntimeException ex) {
				// the keys expire on the nodes at the end of their TTL in any case
				logger.debug("Release of lock '" + LockKeys.printable(this.key) + "' failed", ex);
			}
		}

		private void startRenewal(Lease held, Duration ttl) {
			TaskScheduler scheduler = RedlockLockRegistry.this.renewalTaskScheduler;
			if (scheduler == null) {
				return;
			}
			Duration period = ttl.dividedBy(3);
			AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
			Runnable renew = () -> {
				try {
					if (!held.isHeld() || (!held.extend(ttl) && !held.isHeld())) {
						ScheduledFuture<?> future = self.get();
						if (future != null) {
							future.cancel(false);
						}
					}
				}
				catch (RuntimeException ex) {
					logger.debug("Renewal of lock '" + LockKeys.printable(this.key) + "' failed", ex);
				}
			};
			ScheduledFuture<?> future = scheduler.scheduleWithFixedDelay(renew, Instant.now().plus(period), period);
			self.set(future);
			this.renewal = future;
		}

		private void stopRenewal() {
			ScheduledFuture<?> future = this.renewal;
			this.renewal = null;
			if (future != null) {
				future.cancel(false);
			}
		}

		@Override
		public long fencingToken() {
			Lease held = this.lease;
			if (held == null || !held.isHeld()) {
				throw new IllegalStateException("Lock '" + LockKeys.printable(this.key) + "' is not held"
						+ ((held != null) ? ": its lease expired or was lost" : "")
						+ "; acquire it before asking for its fencing token");
			}
			return held.fencingToken();
		}

		@Override
		public boolean isHeldByCurrentThread() {
			Lease held = this.lease;
			return this.local.isHeldByCurrentThread() && held != null && held.isHeld();
		}

		@Override
		public Condition newCondition() {
			throw new UnsupportedOperationException("Conditions are not supported by distributed locks");
		}

		@Override
		public String toString() {
			return "RedlockLock[key=" + LockKeys.printable(this.key) + ", "
					+ (this.local.isLocked() ? "locked" : "unlocked") + "]";
		}

	}

	private static long deadline(Duration wait) {
		return System.nanoTime() + wait.toNanos();
	}

	private static Duration remaining(long deadline) {
		return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
	}

}
