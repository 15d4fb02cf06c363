package io.github.redlock.kotlin

import io.github.redlock.Lease
import io.github.redlock.LockAcquisitionException
import io.github.redlock.LockLostException
import io.github.redlock.embedded.RedisFleetExtension
import io.github.redlock.engine.RedlockRegistry
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlin.concurrent.thread
import kotlin.time.Duration.Companion.seconds
import kotlin.time.toJavaDuration

/**
 * The coroutine extensions against three real redis-server nodes: mutual exclusion
 * between coroutines, release when the block throws or is cancelled (only once it has
 * stopped), an acquisition abandoned by a cancelled caller, a lock lost while the block
 * ran, and the read-write and semaphore forms. A second registry over the same nodes
 * stands for another process.
 */
class LockRegistryCoroutinesIntegrationTests {

	@Test
	fun twoCoroutinesAreNeverInsideTheLockAtOnce() = runBlocking<Unit>(Dispatchers.Default) {
		val inside = AtomicInteger()
		val firstIn = CompletableDeferred<Unit>()
		val secondWaiting = CompletableDeferred<Unit>()
		val first = async {
			registry.withLock("kotlin:exclusive", ttl = 5.seconds, waitTime = 20.seconds) { lease ->
				assertThat(inside.incrementAndGet()).isEqualTo(1)
				firstIn.complete(Unit)
				secondWaiting.await()
				inside.decrementAndGet()
				lease.fencingToken()
			}
		}
		firstIn.await()
		// undispatched: runs here up to its first suspension, so its acquisition is under way
		// before the first coroutine may leave
		val second = async(start = CoroutineStart.UNDISPATCHED) {
			registry.withLock("kotlin:exclusive", ttl = 5.seconds, waitTime = 20.seconds) { lease ->
				assertThat(inside.incrementAndGet()).describedAs("coroutines inside the lock").isEqualTo(1)
				inside.decrementAndGet()
				lease.fencingToken()
			}
		}
		secondWaiting.complete(Unit)
		val firstToken = first.await()
		assertThat(second.await()).describedAs("the second holder's fencing token").isGreaterThan(firstToken)
	}

	@Test
	fun theLockIsReleasedWhenTheBlockThrows() = runBlocking<Unit> {
		val failure = runCatching {
			registry.withLock("kotlin:throws", ttl = 5.seconds, waitTime = 2.seconds) {
				throw IllegalStateException("failed under the lock")
			}
		}
		assertThat(failure.exceptionOrNull()).isInstanceOf(IllegalStateException::class.java)
			.hasMessage("failed under the lock")
		assertFreeForAnotherProcess("kotlin:throws")
	}

	@Test
	fun theLockIsReleasedWhenTheCallerIsCancelled() = runBlocking<Unit> {
		val entered = CompletableDeferred<Unit>()
		val job = launch(Dispatchers.Default) {
			registry.withLock("kotlin:cancelled", ttl = 5.seconds, waitTime = 2.seconds) {
				entered.complete(Unit)
				awaitCancellation()
			}
		}
		entered.await()
		assertThat(otherProcess.tryAcquire("kotlin:cancelled", TTL)).describedAs("held while the block runs").isEmpty()
		job.cancelAndJoin()
		assertFreeForAnotherProcess("kotlin:cancelled")
	}

	@Test
	fun aCancelledBlockKeepsTheLockUntilItHasStopped() = runBlocking<Unit> {
		val entered = CompletableDeferred<Unit>()
		val heldWhileStopping = CompletableDeferred<Boolean>()
		val job = launch(Dispatchers.Default) {
			registry.withLock("kotlin:stopping", ttl = 5.seconds, waitTime = 2.seconds) {
				try {
					entered.complete(Unit)
					awaitCancellation()
				}
				finally {
					withContext(NonCancellable) {
						val other = otherProcess.tryAcquire("kotlin:stopping", TTL)
						other.ifPresent(Lease::release)
						heldWhileStopping.complete(other.isEmpty)
					}
				}
			}
		}
		entered.await()
		job.cancelAndJoin()
		assertThat(heldWhileStopping.await()).describedAs("the lock was held while the cancelled block finished").isTrue()
		assertFreeForAnotherProcess("kotlin:stopping")
	}

	@Test
	fun aCallerCancelledWhileWaitingLeavesNoLockBehind() = runBlocking<Unit> {
		val holder = otherProcess.acquire("kotlin:abandoned", TTL, TTL)
		// undispatched: its acquisition is under way when launch returns
		val waiter = launch(Dispatchers.Default, CoroutineStart.UNDISPATCHED) {
			registry.withLock("kotlin:abandoned", ttl = 5.seconds, waitTime = 30.seconds) {
				error("the lock was granted to a cancelled caller")
			}
		}
		waiter.cancelAndJoin()
		holder.release()
		// a lease granted to the abandoned acquisition would keep it (extended) for 30 s
		val again = otherProcess.acquire("kotlin:abandoned", TTL, (5.seconds).toJavaDuration())
		again.release()
	}

	@Test
	fun aLockLostWhileTheBlockRanFailsTheCall() = runBlocking<Unit> {
		val result = runCatching {
			registry.withLock("kotlin:lost", ttl = 1.seconds, waitTime = 2.seconds) { lease ->
				fleet.fleet().flushAll()
				await().until { !lease.isHeld }
				"done"
			}
		}
		assertThat(result.exceptionOrNull()).isInstanceOf(LockLostException::class.java).hasMessageContaining("kotlin:lost")
	}

	/**
	 * The registry tells a lease's listeners of its loss on its callback threads, after
	 * the lease already reads as not held. Here every callback thread is kept busy by the
	 * listeners of other lost leases, so the block sees its lease gone before the listener
	 * [withLock] added can run. Before the fix the call returned "done": a loss that
	 * [withLock] only learnt from its listener went unreported.
	 */
	@Test
	fun aLockLostWhileTheCallbackThreadsAreBusyStillFailsTheCall() = runBlocking<Unit> {
		// the registry's callback threads: two per core, at least two
		val callbackThreads = maxOf(2, 2 * Runtime.getRuntime().availableProcessors())
		val entered = CountDownLatch(callbackThreads)
		val gate = CountDownLatch(1)
		val blockers = (1..callbackThreads).map { registry.acquire("kotlin:busy:$it", java.time.Duration.ofSeconds(1), TTL) }
		blockers.forEach { blocker ->
			blocker.addListener { _, _ ->
				entered.countDown()
				gate.await()
			}
		}
		try {
			val result = runCatching {
				registry.withLock("kotlin:lost-unheard", ttl = 1.seconds, waitTime = 2.seconds) { lease ->
					// acquisitions complete on the callback threads too: take them only now
					deleteOnEveryNode("*kotlin:busy:*")
					assertThat(entered.await(30, TimeUnit.SECONDS)).describedAs("every callback thread is busy").isTrue()
					deleteOnEveryNode("*kotlin:lost-unheard*")
					await().until { !lease.isHeld }
					// so does the release after the block: free them a while after the block
					// has returned and withLock has judged it
					thread(isDaemon = true) {
						Thread.sleep(1000)
						gate.countDown()
					}
					"done"
				}
			}
			assertThat(result.exceptionOrNull()).isInstanceOf(LockLostException::class.java)
				.hasMessageContaining("kotlin:lost-unheard")
		}
		finally {
			gate.countDown()
		}
	}

	private fun deleteOnEveryNode(pattern: String) {
		fleet.fleet().nodes().forEach { node ->
			node.call("EVAL", "for _, k in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', k) end return 1", "0",
					pattern)
		}
	}

	@Test
	fun aLockHeldElsewhereFailsTheCallWithLockAcquisitionException() = runBlocking<Unit> {
		val holder = otherProcess.acquire("kotlin:held", TTL, TTL)
		try {
			val result = runCatching {
				registry.withLock("kotlin:held", ttl = 5.seconds, waitTime = 0.seconds) { "ran" }
			}
			assertThat(result.exceptionOrNull()).isInstanceOf(LockAcquisitionException::class.java)
		}
		finally {
			holder.release()
		}
	}

	@Test
	fun readersShareTheLockAndAWriterWaitsForThem() = runBlocking<Unit>(Dispatchers.Default) {
		val readersIn = CompletableDeferred<Unit>()
		val read = registry.withReadLock("kotlin:rw", ttl = 5.seconds, waitTime = 2.seconds) {
			// a second reader, another process, while this one reads
			otherProcess.acquireRead("kotlin:rw", TTL, TTL).use { readersIn.complete(Unit) }
			assertThat(otherProcess.tryAcquire("kotlin:rw", TTL)).describedAs("the exclusive lock, while reading").isEmpty()
			"read"
		}
		assertThat(read).isEqualTo("read")
		assertThat(readersIn.isCompleted).isTrue()
		val written = registry.withWriteLock("kotlin:rw", ttl = 5.seconds, waitTime = 2.seconds) { lease ->
			assertThat(otherProcess.tryAcquire("kotlin:rw", TTL)).describedAs("the exclusive lock, while writing").isEmpty()
			lease.fencingToken()
		}
		assertThat(written).isPositive()
	}

	@Test
	fun aSemaphoreLetsAsManyBlocksInAsItHasPermits() = runBlocking<Unit>(Dispatchers.Default) {
		val exports = registry.semaphore("kotlin:permits", 2)
		exports.withPermit(ttl = 5.seconds, waitTime = 2.seconds) {
			exports.withPermit(ttl = 5.seconds, waitTime = 2.seconds) {
				assertThat(otherProcess.semaphore("kotlin:permits", 2).tryAcquire(TTL)).describedAs("a third permit")
					.isEmpty()
			}
		}
		assertThat(exports.availablePermits()).isEqualTo(2)
	}

	private fun assertFreeForAnotherProcess(key: String) {
		val lease = otherProcess.tryAcquire(key, TTL)
		assertThat(lease).describedAs("the lock, for another process after the call").isPresent()
		lease.get().release()
	}

	companion object {

		@JvmField
		@RegisterExtension
		val fleet: RedisFleetExtension = RedisFleetExtension.nodes(3)

		private val TTL = java.time.Duration.ofSeconds(5)

		private lateinit var registry: RedlockRegistry

		private lateinit var otherProcess: RedlockRegistry

		@JvmStatic
		@BeforeAll
		fun startRegistries() {
			registry = fleet.startRegistry()
			otherProcess = fleet.startRegistry()
		}

		@JvmStatic
		@AfterAll
		fun closeRegistries() {
			registry.close()
			otherProcess.close()
		}

	}

}
