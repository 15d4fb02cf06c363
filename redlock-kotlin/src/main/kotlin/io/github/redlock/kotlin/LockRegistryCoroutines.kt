@file:JvmName("LockRegistryCoroutines")

package io.github.redlock.kotlin

import io.github.redlock.Lease
import io.github.redlock.LockAcquisitionException
import io.github.redlock.LockLostException
import io.github.redlock.LockRegistry
import io.github.redlock.LockSemaphore
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.future.await
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import java.util.concurrent.atomic.AtomicReference
import kotlin.coroutines.resumeWithException
import kotlin.time.Duration
import kotlin.time.toJavaDuration

/**
 * Runs [block] while holding the lock of [key], as [LockRegistry.executeLocked] does,
 * without blocking a thread: suspends until the lock is acquired (retrying until
 * [waitTime] has passed), keeps the lease extended every third of [ttl] while [block]
 * runs, and releases it when [block] returns, throws or is cancelled, once it has stopped
 * running. The call returns after the release, once a quorum of nodes is free of the lock.
 *
 * ```
 * registry.withLock("order:$id", ttl = 10.seconds, waitTime = 2.seconds) { lease ->
 *     store.save(order, lease.fencingToken())
 * }
 * ```
 *
 * Not reentrant: the lease belongs to this call, not to a thread or a coroutine, so a
 * nested `withLock` on the same key waits for the outer one until its wait time ends.
 * Cancelling the calling coroutine while it waits abandons the acquisition (a lease granted
 * meanwhile is released at once).
 *
 * @param key the lock's name, the same as for [LockRegistry.acquire]
 * @param ttl how long the lock lives on the nodes unless extended; it is extended while
 * [block] runs
 * @param waitTime how long to keep trying to acquire; zero for one attempt
 * @param block the work to do under the lock, given the lease (for its fencing token)
 * @return what [block] returned
 * @throws LockAcquisitionException if the lock could not be acquired in time
 * @throws LockLostException if the lock was lost while [block] ran (thrown after [block]
 * returns: its result may rest on data that another holder changed); when [block] threw,
 * the loss is added to its exception, suppressed
 */
suspend fun <T> LockRegistry.withLock(key: String, ttl: Duration, waitTime: Duration, block: suspend (Lease) -> T): T =
	acquireAsync(key, ttl.toJavaDuration(), waitTime.toJavaDuration(), true).holding(block)

/**
 * Runs [block] while holding a read lock of [key], shared with other readers and with no
 * writer, as [withLock] does for the exclusive lock; see [LockRegistry.acquireRead] for
 * the rules of readers and writers. Not reentrant: a coroutine that holds the key's write
 * lock waits for it like any other reader.
 *
 * @param key the lock's name
 * @param ttl how long the read lock lives on the nodes unless extended; it is extended
 * while [block] runs
 * @param waitTime how long to keep trying to acquire; zero for one attempt
 * @param block the work to do under the read lock, given the lease
 * @return what [block] returned
 * @throws LockAcquisitionException if the read lock could not be acquired in time
 * @throws LockLostException if the read lock was lost while [block] ran
 * @throws UnsupportedOperationException if the registry has no read-write locks
 */
suspend fun <T> LockRegistry.withReadLock(key: String, ttl: Duration, waitTime: Duration,
		block: suspend (Lease) -> T): T =
	acquireReadAsync(key, ttl.toJavaDuration(), waitTime.toJavaDuration(), true).holding(block)

/**
 * Runs [block] while holding the write lock of [key], with no reader, writer or exclusive
 * holder of the key at once, as [withLock] does for the exclusive lock; see
 * [LockRegistry.acquireWrite]. Not reentrant.
 *
 * @param key the lock's name
 * @param ttl how long the write lock lives on the nodes unless extended; it is extended
 * while [block] runs
 * @param waitTime how long to keep trying to acquire; zero for one attempt
 * @param block the work to do under the write lock, given the lease
 * @return what [block] returned
 * @throws LockAcquisitionException if the write lock could not be acquired in time
 * @throws LockLostException if the write lock was lost while [block] ran
 * @throws UnsupportedOperationException if the registry has no read-write locks
 */
suspend fun <T> LockRegistry.withWriteLock(key: String, ttl: Duration, waitTime: Duration,
		block: suspend (Lease) -> T): T =
	acquireWriteAsync(key, ttl.toJavaDuration(), waitTime.toJavaDuration(), true).holding(block)

/**
 * Runs [block] while holding one permit of this semaphore, as [withLock] does for a lock:
 * at most [LockSemaphore.permits] blocks run at once across the fleet. Permits are not
 * reentrant: a nested call takes another.
 *
 * @param ttl how long the permit lives on the nodes unless extended; it is extended while
 * [block] runs
 * @param waitTime how long to keep trying to acquire; zero for one attempt
 * @param block the work to do under the permit, given the permit's lease
 * @return what [block] returned
 * @throws LockAcquisitionException if no permit could be acquired in time
 * @throws LockLostException if the permit was lost while [block] ran
 * @throws UnsupportedOperationException if the semaphore has no asynchronous form
 */
suspend fun <T> LockSemaphore.withPermit(ttl: Duration, waitTime: Duration, block: suspend (Lease) -> T): T =
	acquireAsync(ttl.toJavaDuration(), waitTime.toJavaDuration(), true).holding(block)

/**
 * Waits for the lease, runs the block, and releases the lease after it has stopped:
 * `finally` runs only once the block's coroutine code is done, so a cancelled block that
 * still works in a `finally` of its own or a non-cancellable section keeps the lock until
 * it ends.
 */
private suspend fun <T> CompletableFuture<Lease>.holding(block: suspend (Lease) -> T): T {
	val lease = awaitLease()
	val lost = AtomicReference<LockLostException>()
	lease.addListener { _, cause -> lost.compareAndSet(null, cause) }
	try {
		val result = try {
			block(lease)
		}
		catch (ex: Throwable) {
			if (!lease.isHeld) {
				lossOf(lease, lost).let { if (it !== ex) ex.addSuppressed(it) }
			}
			throw ex
		}
		if (!lease.isHeld) {
			throw lossOf(lease, lost)
		}
		return result
	}
	finally {
		withContext(NonCancellable) {
			runCatching { lease.releaseAsync().await() }
		}
	}
}

/**
 * Returns why [lease], found not held, was lost. The lease is judged by its state, as
 * `executeLocked` judges it, not by the listener alone: the registry tells listeners on
 * its callback threads, later than the lease reads as not held. A listener added now is
 * told at once if the loss is decided; the cause's reason is the registry's when it is
 * known by then.
 */
private fun lossOf(lease: Lease, lost: AtomicReference<LockLostException>): LockLostException {
	lost.get()?.let { return it }
	lease.addListener { _, cause -> lost.compareAndSet(null, cause) }
	return lost.get() ?: LockLostException(lease.key(), "its validity ran out before the work under it finished")
}

/**
 * Suspends until the acquisition decides. Cancelling the caller cancels the acquisition;
 * a lease that arrives as the caller is cancelled, too late for it, is released rather
 * than left held (and extended) with nobody to release it.
 */
private suspend fun CompletableFuture<Lease>.awaitLease(): Lease = suspendCancellableCoroutine { continuation ->
	continuation.invokeOnCancellation { cancel(false) }
	whenComplete { lease, failure ->
		if (failure != null) {
			continuation.resumeWithException((failure as? CompletionException)?.cause ?: failure)
		}
		else {
			continuation.resume(lease) { _, granted, _ -> granted.releaseAsync() }
		}
	}
}
