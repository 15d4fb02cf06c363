package io.github.redlock.kotlin

import io.github.redlock.annotation.DistributedLock
import io.github.redlock.embedded.RedisFleetExtension
import io.github.redlock.engine.RedlockRegistry
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.aop.support.AopUtils
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.stereotype.Service
import java.time.Duration

/**
 * Kotlin classes and functions are final unless marked `open`, so a class-based proxy
 * cannot override them: a `@DistributedLock` function of such a class would run
 * unlocked. Start-up refuses it, naming the fix; a class that the kotlin-spring compiler
 * plugin opens (this module's build applies it, as a Spring Boot Kotlin build does) is
 * proxied and locked.
 */
class KotlinClassProxyIntegrationTests {

	private fun withContext(bean: Class<*>, test: (AssertableApplicationContext) -> Unit) =
		fleet.contextRunner().withBean(bean).runTest(test)

	@Test
	fun aFunctionOfAClassThatIsNotOpenStopsStartUp() = withContext(ClosedPayments::class.java) { context ->
		assertThat(context).hasFailed()
		assertThat(context.startupFailure).rootCause()
			.hasMessageContaining("@DistributedLock on ClosedPayments.pay(long): the class ClosedPayments is final")
			.hasMessageContaining("in Kotlin, mark both open, or apply the kotlin-spring or all-open compiler plugin")
	}

	@Test
	fun aFunctionThatIsNotOpenStopsStartUpInAnOpenClass() = withContext(PartlyOpenPayments::class.java) { context ->
		assertThat(context).hasFailed()
		assertThat(context.startupFailure).rootCause()
			.hasMessageContaining("@DistributedLock on PartlyOpenPayments.pay(long): the method is final")
			.hasMessageContaining("in Kotlin, mark it open, or apply the kotlin-spring or all-open compiler plugin")
	}

	@Test
	fun aSuspendFunctionOfAClassThatIsNotOpenStopsStartUp() = withContext(ClosedInventory::class.java) { context ->
		assertThat(context).hasFailed()
		assertThat(context.startupFailure).rootCause()
			.hasMessageContaining(
					"@DistributedLock on ClosedInventory.reserve(String, Continuation): the class ClosedInventory is final")
	}

	@Test
	fun aServiceThatTheSpringPluginOpensIsProxiedAndLocked() = withContext(OpenedPayments::class.java) { context ->
		assertThat(context).hasNotFailed()
		val payments = context.getBean(OpenedPayments::class.java)
		assertThat(AopUtils.isCglibProxy(payments)).isTrue()
		assertThat(payments.pay(7)).describedAs("whether another process could take the lock during the call")
			.isFalse()
	}

	/** Final, as every Kotlin class without `open` or an annotation the plugin knows. */
	class ClosedPayments {

		@DistributedLock(key = "'payment:' + #id")
		fun pay(id: Long): Boolean = takenElsewhere("payment:$id")

	}

	open class PartlyOpenPayments {

		@DistributedLock(key = "'payment:' + #id")
		fun pay(id: Long): Boolean = takenElsewhere("payment:$id")

	}

	class ClosedInventory {

		@DistributedLock(key = "'sku:' + #sku")
		suspend fun reserve(sku: String): String = sku

	}

	/** Opened, with its functions, by the kotlin-spring plugin: `@Service` is a `@Component`. */
	@Service
	class OpenedPayments {

		@DistributedLock(key = "'payment:' + #id")
		fun pay(id: Long): Boolean = takenElsewhere("payment:$id")

	}

	companion object {

		@JvmField
		@RegisterExtension
		val fleet: RedisFleetExtension = RedisFleetExtension.nodes(3)

		private lateinit var otherProcess: RedlockRegistry

		fun takenElsewhere(key: String): Boolean {
			val lease = otherProcess.tryAcquire(key, Duration.ofSeconds(5))
			lease.ifPresent { it.release() }
			return lease.isPresent
		}

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
