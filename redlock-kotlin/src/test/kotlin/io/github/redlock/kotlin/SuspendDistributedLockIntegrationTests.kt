package io.github.redlock.kotlin

import io.github.redlock.LockAcquisitionException
import io.github.redlock.LockLostException
import io.github.redlock.annotation.DistributedLock
import io.github.redlock.aop.CurrentLease
import io.github.redlock.embedded.RedisFleetExtension
import io.github.redlock.engine.RedlockRegistry
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.reactor.awaitSingle
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.aop.support.AopUtils
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.stereotype.Service
import reactor.core.publisher.Mono
import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger

/**
 * `@DistributedLock` on Kotlin `suspend` functions, called through the Spring proxy of an
 * application context on three real redis-server nodes: locked as Spring's
 * `@Transactional` locks them, through the coroutine bridge (the proxy hands the
 * interceptor a `Mono` of the call). Every test here failed before suspend functions were
 * supported: the context did not start, and `hasNotFailed()` printed "@DistributedLock on
 * Inventory.fail(String, Continuation): the method is a Kotlin suspend function, which the
 * lock cannot follow: it would be released at the first suspension, before the work is
 * done".
 * A second registry over the same nodes stands for another process.
 */
class SuspendDistributedLockIntegrationTests {

	private fun contextRunner() = fleet.contextRunner().withBean(Inventory::class.java)

	private fun withContext(runner: ApplicationContextRunner = contextRunner(),
			test: (AssertableApplicationContext) -> Unit) = runner.runTest(test)

	@Test
	fun twoConcurrentSuspendCallsAreNeverInsideAtOnce() = withContext { context ->
		assertThat(context).hasNotFailed()
		val inventory = context.getBean(Inventory::class.java)
		assertThat(AopUtils.isCglibProxy(inventory)).isTrue()
		runBlocking(Dispatchers.Default) {
			val firstIn = CompletableDeferred<Unit>()
			val secondWaiting = CompletableDeferred<Unit>()
			val first = async { inventory.reserve("7", firstIn, secondWaiting) }
			firstIn.await()
			// undispatched: runs here up to its first suspension, so its acquisition is under
			// way before the first call may leave
			val second = async(start = CoroutineStart.UNDISPATCHED) { inventory.reserve("7", null, null) }
			secondWaiting.complete(Unit)
			val firstToken = first.await()
			assertThat(second.await()).describedAs("the second call's fencing token").isGreaterThan(firstToken)
		}
		assertThat(inventory.most.get()).describedAs("calls inside reserve() at once").isEqualTo(1)
	}

	@Test
	fun theLockIsHeldWhileTheFunctionIsSuspendedAndReleasedWhenItReturns() = withContext { context ->
		val inventory = context.getBean(Inventory::class.java)
		runBlocking(Dispatchers.Default) {
			val entered = CompletableDeferred<Unit>()
			val leave = CompletableDeferred<Unit>()
			val call = async { inventory.reserve("8", entered, leave) }
			entered.await()
			assertThat(otherProcess.tryAcquire("sku:8", TTL)).describedAs("the lock, while the call is suspended")
				.isEmpty()
			leave.complete(Unit)
			call.await()
		}
		assertFreeForAnotherProcess("sku:8")
	}

	@Test
	fun theLockIsReleasedWhenTheFunctionThrows() = withContext { context ->
		val inventory = context.getBean(Inventory::class.java)
		val result = runBlocking { runCatching { inventory.fail("9") } }
		assertThat(result.exceptionOrNull()).isInstanceOf(IllegalStateException::class.java)
			.hasMessage("failed under the lock")
		assertFreeForAnotherProcess("sku:9")
	}

	@Test
	fun theLockIsReleasedWhenTheCallerIsCancelled() = withContext { context ->
		val inventory = context.getBean(Inventory::class.java)
		runBlocking(Dispatchers.Default) {
			val entered = CompletableDeferred<Unit>()
			val call = launch { inventory.reserve("10", entered, CompletableDeferred()) }
			entered.await()
			assertThat(otherProcess.tryAcquire("sku:10", TTL)).describedAs("the lock, while the call runs").isEmpty()
			call.cancelAndJoin()
		}
		// the release that the cancellation starts is not awaited by the caller
		await().until { otherProcess.tryAcquire("sku:10", TTL).map { it.release() }.isPresent }
	}

	@Test
	fun aLockHeldElsewhereFailsTheCallWithLockAcquisitionException() = withContext { context ->
		val inventory = context.getBean(Inventory::class.java)
		val holder = otherProcess.acquire("sku:11", TTL, TTL)
		try {
			val result = runBlocking { runCatching { inventory.once("11") } }
			assertThat(result.exceptionOrNull()).isInstanceOf(LockAcquisitionException::class.java)
				.hasMessageContaining("Inventory.once(String, Continuation)")
		}
		finally {
			holder.release()
		}
	}

	@Test
	fun aCallThatSkipsWhenLockedReturnsWithoutRunning() = withContext { context ->
		val inventory = context.getBean(Inventory::class.java)
		val holder = otherProcess.acquire("report", TTL, TTL)
		try {
			runBlocking { inventory.report() }
			assertThat(inventory.reports.get()).describedAs("reports run while the lock was held elsewhere")
				.isZero()
		}
		finally {
			holder.release()
		}
		runBlocking { inventory.report() }
		assertThat(inventory.reports.get()).isOne()
	}

	@Test
	fun aCallWithANullableResultThatSkipsWhenLockedReturnsNull() = withContext { context ->
		val inventory = context.getBean(Inventory::class.java)
		val holder = otherProcess.acquire("price:14", TTL, TTL)
		try {
			assertThat(runBlocking { inventory.price("14") }).isNull()
		}
		finally {
			holder.release()
		}
		assertThat(runBlocking { inventory.price("14") }).isEqualTo(42)
	}

	@Test
	fun aLockLostWhileTheFunctionRanFailsTheCall() = withContext { context ->
		val inventory = context.getBean(Inventory::class.java)
		val result = runBlocking { runCatching { inventory.lose("12") } }
		assertThat(result.exceptionOrNull()).isInstanceOf(LockLostException::class.java)
			.hasMessageContaining("sku:12")
	}

	@Test
	fun aSuspendFunctionReturningAFlowHoldsTheLockUntilTheFlowCompletes() = withContext { context ->
		val inventory = context.getBean(Inventory::class.java)
		runBlocking(Dispatchers.Default) {
			val emitted = CompletableDeferred<Unit>()
			val finish = CompletableDeferred<Unit>()
			val collecting = async { inventory.stock("13", emitted, finish).toList() }
			emitted.await()
			assertThat(otherProcess.tryAcquire("sku:13", TTL)).describedAs("the lock, while the flow runs").isEmpty()
			finish.complete(Unit)
			assertThat(collecting.await()).containsExactly(1, 2)
		}
		await().until { otherProcess.tryAcquire("sku:13", TTL).map { it.release() }.isPresent }
	}

	@Test
	fun aValueReturningFunctionThatSkipsWhenLockedIsRefusedAtStartUp() = withContext(
			contextRunner().withBean(SkippingWithValue::class.java)) { context ->
			assertThat(context).hasFailed()
			assertThat(context.startupFailure).rootCause()
				.hasMessageContaining("@DistributedLock on SkippingWithValue.price(String, Continuation)")
				.hasMessageContaining("skipIfLocked")
		}

	@Test
	fun aSuspendFunctionReturningAMonoIsRefusedAtStartUp() = withContext(
			contextRunner().withBean(SuspendingMono::class.java)) { context ->
		assertThat(context).hasFailed()
		assertThat(context.startupFailure).rootCause()
			.hasMessageContaining("@DistributedLock on SuspendingMono.price(String, Continuation): the method is a Kotlin"
					+ " suspend function that returns reactor.core.publisher.Mono")
			.hasMessageContaining("Return the value itself, or drop suspend")
	}

	@Test
	fun aMinimumHoldOnASuspendFunctionIsRefusedAtStartUp() = withContext(
			contextRunner().withBean(HoldingAtLeast::class.java)) { context ->
		assertThat(context).hasFailed()
		assertThat(context.startupFailure).rootCause()
			.hasMessageContaining("@DistributedLock on HoldingAtLeast.report(Continuation): attribute holdAtLeast")
			.hasMessageContaining("is not supported on a suspend function")
	}

	private fun assertFreeForAnotherProcess(key: String) {
		val lease = otherProcess.tryAcquire(key, TTL)
		assertThat(lease).describedAs("the lock, for another process after the call").isPresent()
		lease.get().release()
	}

	/**
	 * A service as a Kotlin application writes it: `@Service`, which the kotlin-spring
	 * compiler plugin opens, so that the class-based proxy can override its functions.
	 */
	@Service
	class Inventory {

		private val inside = AtomicInteger()

		val most = AtomicInteger()

		val reports = AtomicInteger()

		@DistributedLock(key = "'sku:' + #sku", ttl = "5s", waitTime = "20s")
		suspend fun reserve(sku: String, entered: CompletableDeferred<Unit>?, leave: CompletableDeferred<Unit>?): Long {
			most.accumulateAndGet(inside.incrementAndGet()) { a, b -> maxOf(a, b) }
			try {
				entered?.complete(Unit)
				leave?.await()
				return CurrentLease.mono().awaitSingle().fencingToken()
			}
			finally {
				inside.decrementAndGet()
			}
		}

		@DistributedLock(key = "'sku:' + #sku", ttl = "5s", waitTime = "2s")
		suspend fun fail(sku: String): String {
			yield()
			throw IllegalStateException("failed under the lock")
		}

		@DistributedLock(key = "'sku:' + #sku", ttl = "5s", waitTime = "0s")
		suspend fun once(sku: String): String = "ran"

		@DistributedLock(key = "'report'", skipIfLocked = true)
		suspend fun report() {
			reports.incrementAndGet()
		}

		@DistributedLock(key = "'price:' + #sku", skipIfLocked = true)
		suspend fun price(sku: String): Long? = 42

		@DistributedLock(key = "'sku:' + #sku", ttl = "1s", waitTime = "2s")
		suspend fun lose(sku: String): String {
			val lease = CurrentLease.mono().awaitSingle()
			fleet.fleet().flushAll()
			await().until { !lease.isHeld }
			return "done"
		}

		@DistributedLock(key = "'sku:' + #sku", ttl = "5s", waitTime = "2s")
		suspend fun stock(sku: String, emitted: CompletableDeferred<Unit>, finish: CompletableDeferred<Unit>): Flow<Int> {
			yield()
			return flow {
				emit(1)
				emitted.complete(Unit)
				finish.await()
				emit(2)
			}
		}

	}

	@Service
	class SkippingWithValue {

		@DistributedLock(key = "'price:' + #sku", skipIfLocked = true)
		suspend fun price(sku: String): Long = 42

	}

	@Service
	class SuspendingMono {

		@DistributedLock(key = "'price:' + #sku")
		suspend fun price(sku: String): Mono<Long> = Mono.just(42)

	}

	@Service
	class HoldingAtLeast {

		@DistributedLock(key = "'report'", holdAtLeast = "1m")
		suspend fun report() {
		}

	}

	companion object {

		@JvmField
		@RegisterExtension
		val fleet: RedisFleetExtension = RedisFleetExtension.nodes(3)

		private val TTL = Duration.ofSeconds(5)

		private lateinit var otherProcess: RedlockRegistry

		@JvmStatic
		@BeforeAll
		fun startRegistry() {
			otherProcess = fleet.startRegistry()
		}

		@JvmStatic
		@AfterAll
		fun closeRegistry() {
			otherProcess.close()
		}

	}

}
