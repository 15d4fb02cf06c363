package io.github.redlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import org.jspecify.annotations.Nullable;

/**
 * Distributed locks over a quorum of independent Redis-protocol nodes.
 * <p>
 * A key names one lock; every registry that shares the nodes and the key prefix contends
 * for it. The blocking calls are thread-reentrant: a thread that holds a key acquires it
 * again at once, with no round trip, and the lock is freed when the outermost lease is
 * released.
 *
 * <pre class="code">
 * try (Lease lease = registry.acquire("reconcile", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
 *     store.write(batch, lease.fencingToken());
 * }
 * </pre>
 *
 * @author redlock contributors
 * @see Lease
 */
public interface LockRegistry {

	/**
	 * Acquires the lock, retrying with a jittered delay until {@code waitTime} has
	 * passed. The lease is not extended automatically: call
	 * {@link Lease#extend(Duration)} or use
	 * {@link #executeLocked(String, Duration, Duration, Callable)}.
	 * @param key the lock's name
	 * @param ttl how long the lock lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @return the lease, held
	 * @throws LockAcquisitionException if the lock could not be acquired in time
	 * @throws InterruptedException if the thread was interrupted while waiting
	 */
	Lease acquire(String key, Duration ttl, Duration waitTime) throws InterruptedException;

	/**
	 * Acquires the lock as {@link #acquire(String, Duration, Duration)} does and, if
	 * {@code autoExtend}, keeps the lease extended every third of its TTL until it is
	 * released (bounded by the registry's maximum hold time). A registry that cannot
	 * extend leases by itself acquires without it.
	 * @param key the lock's name
	 * @param ttl how long the lock lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @param autoExtend whether to keep the lease extended until released
	 * @return the lease, held
	 * @throws LockAcquisitionException if the lock could not be acquired in time
	 * @throws InterruptedException if the thread was interrupted while waiting
	 */
	default Lease acquire(String key, Duration ttl, Duration waitTime, boolean autoExtend) throws InterruptedException {
		return acquire(key, ttl, waitTime);
	}

	/**
	 * Acquires the lock without blocking a thread, as
	 * {@link #acquireAsync(String, Duration, Duration)} does and, if {@code autoExtend},
	 * keeps the lease extended until released.
	 * @param key the lock's name
	 * @param ttl how long the lock lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @param autoExtend whether to keep the lease extended until released
	 * @return a future for the lease
	 */
	default CompletableFuture<Lease> acquireAsync(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return acquireAsync(key, ttl, waitTime);
	}

	/**
	 * Returns how long a caller that blocks on an acquisition with {@code waitTime} (such
	 * as on the future of {@link #acquireAsync(String, Duration, Duration)}) waits for
	 * its outcome at most: the wait time plus whatever the registry needs to decide its
	 * last attempt. The registry decides every acquisition within it; callers bound their
	 * waits by it so that nothing hangs should an outcome never come.
	 * @param waitTime the acquisition's wait time
	 * @return the bound; this default allows one minute past the wait time
	 */
	default Duration decisionBound(Duration waitTime) {
		return waitTime.plus(Duration.ofMinutes(1));
	}

	/**
	 * Acquires the lock with the registry's default TTL and wait time.
	 * @param key the lock's name
	 * @return the lease, held
	 * @throws LockAcquisitionException if the lock could not be acquired in time
	 * @throws InterruptedException if the thread was interrupted while waiting
	 */
	Lease acquire(String key) throws InterruptedException;

	/**
	 * Makes one attempt to acquire the lock, without retrying.
	 * @param key the lock's name
	 * @param ttl how long the lock lives on the nodes unless extended or released
	 * @return the lease, or empty if the lock is held elsewhere or no quorum answered
	 */
	Optional<Lease> tryAcquire(String key, Duration ttl);

	/**
	 * Acquires the lock without blocking a thread. This call is not thread-reentrant. The
	 * future completes on one of the registry's {@code redlock-callback} threads, never
	 * on a Lettuce I/O thread: completion stages attached to it without an executor run
	 * there, and should not block for long, since those threads (two per core) also run
	 * the other leases' callbacks.
	 * @param key the lock's name
	 * @param ttl how long the lock lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @return a future for the lease; it fails with {@link LockAcquisitionException} if
	 * the lock could not be acquired in time, and cancelling it abandons the attempt
	 */
	CompletableFuture<Lease> acquireAsync(String key, Duration ttl, Duration waitTime);

	/**
	 * Acquires the lock, runs {@code action} while the lease is kept extended, and
	 * releases it afterwards, whatever the outcome.
	 * @param <T> the action's result type
	 * @param key the lock's name
	 * @param ttl the lease's TTL, renewed every third of it while the action runs
	 * @param waitTime how long to keep trying to acquire
	 * @param action the work to do under the lock
	 * @return the action's result
	 * @throws LockAcquisitionException if the lock could not be acquired in time
	 * @throws LockLostException if the lock was lost while the action ran (thrown after
	 * the action returns: its result may rest on data that another holder changed)
	 * @throws Exception whatever the action throws
	 */
	<T extends @Nullable Object> T executeLocked(String key, Duration ttl, Duration waitTime, Callable<T> action)
			throws Exception;

	/**
	 * Returns a {@link Lock} view of a key, for code written against {@code Lock}, which
	 * behaves as {@code Lock} specifies. {@code lock()} acquires with the default TTL and
	 * keeps the lease extended until {@code unlock()}; holds are reentrant per thread;
	 * {@code tryLock(time, unit)} with a time of zero or less makes one attempt;
	 * {@code lockInterruptibly()} and {@code tryLock(time, unit)} throw
	 * {@link InterruptedException} with the thread's interrupted status cleared;
	 * {@code unlock()} by a thread that does not hold the lock throws
	 * {@link IllegalMonitorStateException}; {@code newCondition()} throws
	 * {@link UnsupportedOperationException}, as conditions are not supported.
	 * @param key the lock's name
	 * @return the lock view
	 */
	Lock obtain(String key);

	/**
	 * Asks every node who holds a lock and for how long, for operators and health
	 * endpoints. Changes nothing.
	 * @param key the lock's name
	 * @return the lock's state on each node
	 */
	LockInfo inspect(String key);

	/**
	 * Acquires a read lock on the key: any number of readers hold it at once, and no
	 * writer (nor exclusive lock of the same key) while they do. Retries until
	 * {@code waitTime} has passed. Waiting writers go first: once a writer waits, new
	 * readers wait for it. Thread-reentrant: a thread that holds the read lock joins its
	 * lease; a thread that holds the write lock gets a read lock at once (a downgrade: it
	 * keeps reading after releasing the write lock). The lease has a fencing token above
	 * every writer's that held before.
	 * @param key the lock's name, the same as for {@link #acquire(String)}
	 * @param ttl how long the read lock lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @return the lease, held
	 * @throws LockAcquisitionException if it could not be acquired in time, or the thread
	 * was interrupted while waiting (its interrupted status is set again)
	 * @throws UnsupportedOperationException if the registry has no read-write locks
	 */
	default Lease acquireRead(String key, Duration ttl, Duration waitTime) {
		throw new UnsupportedOperationException(getClass().getName() + " has no read-write locks");
	}

	/**
	 * Acquires a read lock as {@link #acquireRead(String, Duration, Duration)} does and,
	 * if {@code autoExtend}, keeps the lease extended every third of its TTL until it is
	 * released. A registry that cannot extend leases by itself acquires without it.
	 * @param key the lock's name
	 * @param ttl how long the read lock lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @param autoExtend whether to keep the lease extended until released
	 * @return the lease, held
	 * @throws LockAcquisitionException if it could not be acquired in time
	 */
	default Lease acquireRead(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return acquireRead(key, ttl, waitTime);
	}

	/**
	 * Acquires the write lock as {@link #acquireWrite(String, Duration, Duration)} does
	 * and, if {@code autoExtend}, keeps the lease extended every third of its TTL until
	 * it is released. A registry that cannot extend leases by itself acquires without it.
	 * @param key the lock's name
	 * @param ttl how long the write lock lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @param autoExtend whether to keep the lease extended until released
	 * @return the lease, held
	 * @throws LockAcquisitionException if it could not be acquired in time
	 */
	default Lease acquireWrite(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return acquireWrite(key, ttl, waitTime);
	}

	/**
	 * Acquires the write lock on the key: held by one writer, and by no reader, exclusive
	 * lock ({@link #acquire(String)} of the same key) or other writer at once. Retries
	 * until {@code waitTime} has passed. Thread-reentrant for the write lock; refused at
	 * once to a thread that holds only the read lock of the key, since two readers that
	 * both waited to write would each wait for the other forever. The lease's fencing
	 * token is above every earlier reader's, writer's and exclusive holder's.
	 * @param key the lock's name
	 * @param ttl how long the write lock lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @return the lease, held
	 * @throws LockAcquisitionException if it could not be acquired in time, if the thread
	 * holds the read lock, or if it was interrupted while waiting
	 * @throws UnsupportedOperationException if the registry has no read-write locks
	 */
	default Lease acquireWrite(String key, Duration ttl, Duration waitTime) {
		throw new UnsupportedOperationException(getClass().getName() + " has no read-write locks");
	}

	/**
	 * Acquires a read lock without blocking a thread, with the rules of
	 * {@link #acquireRead(String, Duration, Duration)} for exclusion, waiting writers and
	 * fencing tokens. Not thread-reentrant: a future has no owning thread, so each call
	 * takes a lease of its own, whatever the calling thread holds (a thread that holds
	 * the write lock of the key waits for it like any other reader, until the wait time
	 * ends). Completion stages attached to the returned future without an executor run on
	 * the registry's threads and must not block.
	 * @param key the lock's name, the same as for {@link #acquire(String)}
	 * @param ttl how long the read lock lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @return a future for the lease; it fails with {@link LockAcquisitionException} if
	 * the lock could not be acquired in time, and cancelling it abandons the attempt (a
	 * lease granted to it meanwhile is released at once)
	 * @throws UnsupportedOperationException if the registry has no read-write locks
	 */
	default CompletableFuture<Lease> acquireReadAsync(String key, Duration ttl, Duration waitTime) {
		throw new UnsupportedOperationException(getClass().getName() + " has no asynchronous read-write locks");
	}

	/**
	 * Acquires a read lock as {@link #acquireReadAsync(String, Duration, Duration)} does
	 * and, if {@code autoExtend}, keeps the lease extended every third of its TTL until
	 * it is released. A registry that cannot extend leases by itself acquires without it.
	 * @param key the lock's name
	 * @param ttl how long the read lock lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @param autoExtend whether to keep the lease extended until released
	 * @return a future for the lease
	 * @throws UnsupportedOperationException if the registry has no read-write locks
	 */
	default CompletableFuture<Lease> acquireReadAsync(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return acquireReadAsync(key, ttl, waitTime);
	}

	/**
	 * Acquires the write lock without blocking a thread, with the rules of
	 * {@link #acquireWrite(String, Duration, Duration)} for exclusion and fencing tokens.
	 * Not thread-reentrant: a future has no owning thread, so each call takes a lease of
	 * its own and is never refused for what the calling thread holds (a thread that holds
	 * the key's read, write or exclusive lock waits for it like any other writer, until
	 * the wait time ends). Completion stages attached to the returned future without an
	 * executor run on the registry's threads and must not block.
	 * @param key the lock's name
	 * @param ttl how long the write lock lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @return a future for the lease; it fails with {@link LockAcquisitionException} if
	 * the lock could not be acquired in time, and cancelling it abandons the attempt (a
	 * lease granted to it meanwhile is released at once)
	 * @throws UnsupportedOperationException if the registry has no read-write locks
	 */
	default CompletableFuture<Lease> acquireWriteAsync(String key, Duration ttl, Duration waitTime) {
		throw new UnsupportedOperationException(getClass().getName() + " has no asynchronous read-write locks");
	}

	/**
	 * Acquires the write lock as {@link #acquireWriteAsync(String, Duration, Duration)}
	 * does and, if {@code autoExtend}, keeps the lease extended every third of its TTL
	 * until it is released. A registry that cannot extend leases by itself acquires
	 * without it.
	 * @param key the lock's name
	 * @param ttl how long the write lock lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @param autoExtend whether to keep the lease extended until released
	 * @return a future for the lease
	 * @throws UnsupportedOperationException if the registry has no read-write locks
	 */
	default CompletableFuture<Lease> acquireWriteAsync(String key, Duration ttl, Duration waitTime,
			boolean autoExtend) {
		return acquireWriteAsync(key, ttl, waitTime);
	}

	/**
	 * Returns a {@link ReadWriteLock} view of a key, whose read and write locks behave as
	 * {@link #obtain(String)}'s lock does ({@code lock()} acquires with the default TTL
	 * and keeps the lease extended until {@code unlock()}), with the rules of
	 * {@link #acquireRead} and {@link #acquireWrite}: {@code writeLock().tryLock()} by a
	 * thread that holds only the read lock returns {@code false}, and
	 * {@code writeLock().lock()} throws {@link LockAcquisitionException} there rather
	 * than wait forever.
	 * @param key the lock's name
	 * @return the read-write lock view
	 * @throws UnsupportedOperationException if the registry has no read-write locks
	 */
	default ReadWriteLock obtainReadWrite(String key) {
		throw new UnsupportedOperationException(getClass().getName() + " has no read-write locks");
	}

	/**
	 * Returns a semaphore of {@code permits} permits on the key, each permit a lease.
	 * Semaphores live apart from locks: a semaphore and a lock of the same key do not
	 * exclude each other, and share nothing on the nodes (a semaphore has its own fencing
	 * counter, so their tokens are not ordered across both).
	 * @param key the semaphore's name
	 * @param permits how many holders at most, from 1 to 16383
	 * @return the semaphore
	 * @throws IllegalArgumentException if the key or the permit count is not acceptable
	 * @throws UnsupportedOperationException if the registry has no semaphores
	 */
	default LockSemaphore semaphore(String key, int permits) {
		throw new UnsupportedOperationException(getClass().getName() + " has no semaphores");
	}

}
