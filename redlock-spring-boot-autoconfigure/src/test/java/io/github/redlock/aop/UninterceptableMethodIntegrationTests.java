package io.github.redlock.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.github.redlock.aop.LockedServices.lockedOn;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @DistributedLock} method that its bean's proxy cannot intercept (issue 38,
 * item 2): a final method under a class-based proxy (every Kotlin member without
 * {@code open}), a private or a static method, a method of a final class, a method that
 * an interface-based proxy does not expose. Each started and ran unlocked before the fix;
 * now start-up stops, naming the method and the fix.
 * <p>
 * Without {@link AopAutoConfiguration} the auto-proxy creator proxies a bean with an
 * interface by that interface (a JDK proxy); with it (Spring Boot's default,
 * {@code spring.aop.proxy-target-class=true}) every bean gets a class-based (CGLIB)
 * proxy.
 */
class UninterceptableMethodIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
		.withPropertyValues(FleetProperties.of(fleet));

	private final ApplicationContextRunner classProxies = this.contextRunner
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class));

	@BeforeEach
	void shareFleet() {
		LockedServices.fleet = fleet.fleet();
	}

	@Test
	void aFinalMethodStopsStartUpNamingTheMethodAndTheFix() {
		// failed before the fix: the context started, and the description computed on
		// failure printed "[started, and 2 calls were inside pay() at once]"
		this.contextRunner.withBean(FinalMethodService.class).run((context) -> {
			assertThat(context).as(() -> "started, and " + insideAtOnce(context) + " calls were inside pay() at once")
				.hasFailed();
			assertRefused(context, "@DistributedLock on FinalMethodService.pay(long): the method is final",
					"Make the method non-final", "kotlin-spring", "all-open",
					"move the lock to a public method of another bean");
		});
	}

	@Test
	void aPrivateMethodStopsStartUp() {
		this.contextRunner.withBean(PrivateMethodService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertRefused(context, "@DistributedLock on PrivateMethodService.pay(long): the method is private",
					"Make the method public", "move the lock to a public method of another bean");
		});
	}

	@Test
	void aStaticMethodStopsStartUp() {
		this.contextRunner.withBean(StaticMethodService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertRefused(context, "@DistributedLock on StaticMethodService.pay(long): the method is static",
					"instance method", "move the lock to a public method of another bean");
		});
	}

	@Test
	void aMethodOfAFinalClassStopsStartUp() {
		// failed before the fix with CGLIB's "Cannot subclass final class", which named
		// neither the lock nor the fix
		this.contextRunner.withBean(FinalClassService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertRefused(context,
					"@DistributedLock on FinalClassService.pay(long): the class FinalClassService is final",
					"Make the class and the method non-final", "kotlin-spring",
					"move the lock to a public method of another bean");
		});
	}

	@Test
	void aFinalMethodOfAnInterfaceStopsStartUpUnderAClassBasedProxy() {
		this.classProxies.withBean(FinalPayments.class).run((context) -> {
			assertThat(context).hasFailed();
			assertRefused(context,
					"@DistributedLock on FinalPayments.pay(long): the method is final, and the bean's class-based (CGLIB) proxy",
					"Make the method non-final", "move the lock to a public method of another bean");
		});
	}

	@Test
	void aFinalMethodOfAnInterfaceIsLockedUnderAnInterfaceBasedProxy() {
		this.contextRunner.withBean(FinalPayments.class).run((context) -> {
			assertThat(context).hasNotFailed();
			Payments payments = context.getBean(Payments.class);
			assertThat(AopUtils.isJdkDynamicProxy(payments)).isTrue();
			assertThat(payments.pay(5)).as("nodes holding the lock").isGreaterThanOrEqualTo(2);
		});
	}

	@Test
	void aFinalMethodOfABeanInACircularReferenceStopsStartUp() {
		// the auditor gets the payments bean's early proxy, built before the bean is
		// initialized: the check looks at that proxy too
		this.classProxies.withAllowCircularReferences(true)
			.withBean(CircularPayments.class)
			.withBean(Auditor.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertRefused(context, "@DistributedLock on CircularPayments.pay(long): the method is final",
						"Make the method non-final");
			});
	}

	@Test
	void aMethodNoProxiedInterfaceDeclaresStopsStartUpUnderAnInterfaceBasedProxy() {
		this.contextRunner.withBean(OffInterfacePayments.class).run((context) -> {
			assertThat(context).hasFailed();
			assertRefused(context,
					"@DistributedLock on OffInterfacePayments.refund(long): the method is on no interface of the bean's interface-based (JDK) proxy (Payments)",
					"Declare the method on an interface", "spring.aop.proxy-target-class=true",
					"move the lock to a public method of another bean");
		});
	}

	@Test
	void aMethodNoInterfaceDeclaresIsLockedUnderAClassBasedProxy() {
		this.classProxies.withBean(OffInterfacePayments.class).run((context) -> {
			assertThat(context).hasNotFailed();
			OffInterfacePayments payments = context.getBean(OffInterfacePayments.class);
			assertThat(AopUtils.isCglibProxy(payments)).isTrue();
			assertThat(payments.refund(3)).as("nodes holding the lock").isGreaterThanOrEqualTo(2);
		});
	}

	@Test
	void anOverridableMethodStartsAndIsLocked() {
		this.classProxies.withBean(OpenMethodService.class).run((context) -> {
			assertThat(context).hasNotFailed();
			OpenMethodService service = context.getBean(OpenMethodService.class);
			assertThat(service.pay(9)).as("nodes holding the lock").isGreaterThanOrEqualTo(2);
			assertThat(service.settle(9)).as("nodes holding the lock").isGreaterThanOrEqualTo(2);
			assertThat(service.audit(9)).as("nodes holding the lock").isGreaterThanOrEqualTo(2);
		});
	}

	@Test
	void everyLockedMethodOfABeanIsCheckedNotOnlyTheFirstFound() {
		// failed before the fix: the proxy creator stops at the first locked method it
		// finds (the subclass's, before its superclass's), so the context started and
		// the superclass's private method ran unlocked
		this.contextRunner.withBean(InheritingService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertRefused(context, "@DistributedLock on BaseService.audit(long): the method is private",
					"Make the method public");
		});
	}

	@Test
	void aBadKeyOnALockedMethodFoundAfterAnotherStopsStartUp() {
		// failed before the fix: the context started, and the misspelled key was refused
		// only at the first call of refund() (a class-based proxy checks every method it
		// overrides when it is built; an interface-based one builds each method's
		// interception at its first call)
		this.contextRunner.withBean(InheritingTypoService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidDistributedLockException.class)
				.hasMessageContaining("@DistributedLock on TypoBaseService.refund(long): attribute key")
				.hasMessageContaining("#orderID");
		});
	}

	private static void assertRefused(AssertableApplicationContext context, String description, String... actions) {
		assertThat(context.getStartupFailure()).rootCause()
			.hasMessageContaining("every call would run unlocked")
			.isInstanceOfSatisfying(InvalidDistributedLockException.class, (refusal) -> {
				assertThat(refusal.getDescription()).startsWith(description);
				assertThat(refusal.getAction()).contains(actions);
			});
	}

	/**
	 * Calls the final method from two threads at once and returns how many were inside it
	 * together. Each call waits, up to ten seconds, for the other to come in: under a
	 * lock the second waits for the first to leave, and there is one.
	 */
	private static int insideAtOnce(AssertableApplicationContext context) {
		FinalMethodService service = context.getBean(FinalMethodService.class);
		CompletableFuture<?> first = CompletableFuture.runAsync(() -> service.pay(1));
		CompletableFuture<?> second = CompletableFuture.runAsync(() -> service.pay(1));
		CompletableFuture.allOf(first, second).join();
		return FinalMethodService.mostInside.get();
	}

	static class FinalMethodService {

		// static: a final method runs on the CGLIB proxy instance itself, whose fields
		// were never initialized
		static final AtomicInteger inside = new AtomicInteger();

		static final AtomicInteger mostInside = new AtomicInteger();

		static final CountDownLatch arrived = new CountDownLatch(2);

		@DistributedLock(key = "'final:' + #orderId")
		public final void pay(long orderId) {
			mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
			arrived.countDown();
			try {
				arrived.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			inside.decrementAndGet();
		}

	}

	static class PrivateMethodService {

		public int payThroughThis(long orderId) {
			return pay(orderId);
		}

		@DistributedLock(key = "'private:' + #orderId")
		private int pay(long orderId) {
			return lockedOn("private:" + orderId);
		}

	}

	static class StaticMethodService {

		@DistributedLock(key = "'static:' + #orderId")
		public static int pay(long orderId) {
			return lockedOn("static:" + orderId);
		}

	}

	static final class FinalClassService {

		@DistributedLock(key = "'final-class:' + #orderId")
		public int pay(long orderId) {
			return lockedOn("final-class:" + orderId);
		}

	}

	interface Payments {

		int pay(long orderId);

	}

	static class FinalPayments implements Payments {

		@Override
		@DistributedLock(key = "'final-interface:' + #orderId")
		public final int pay(long orderId) {
			return lockedOn("final-interface:" + orderId);
		}

	}

	static class CircularPayments implements Payments {

		@Autowired
		Auditor auditor;

		@Override
		@DistributedLock(key = "'circular:' + #orderId")
		public final int pay(long orderId) {
			return lockedOn("circular:" + orderId);
		}

	}

	static class Auditor {

		@Autowired
		Payments payments;

	}

	static class OffInterfacePayments implements Payments {

		@Override
		public int pay(long orderId) {
			return refund(orderId);
		}

		@DistributedLock(key = "'refund:' + #orderId")
		public int refund(long orderId) {
			return lockedOn("refund:" + orderId);
		}

	}

	static class OpenMethodService {

		@DistributedLock(key = "'open:' + #orderId")
		public int pay(long orderId) {
			return lockedOn("open:" + orderId);
		}

		@DistributedLock(key = "'settle:' + #orderId")
		protected int settle(long orderId) {
			return lockedOn("settle:" + orderId);
		}

		@DistributedLock(key = "'audit:' + #orderId")
		int audit(long orderId) {
			return lockedOn("audit:" + orderId);
		}

	}

	static class BaseService {

		public int auditThroughThis(long orderId) {
			return audit(orderId);
		}

		@DistributedLock(key = "'audit:' + #orderId")
		private int audit(long orderId) {
			return lockedOn("audit:" + orderId);
		}

	}

	interface PayAndRefund {

		int pay(long orderId);

		int refund(long orderId);

	}

	static class TypoBaseService {

		@DistributedLock(key = "'refund:' + #orderID")
		public int refund(long orderId) {
			return lockedOn("refund:" + orderId);
		}

	}

	static class InheritingTypoService extends TypoBaseService implements PayAndRefund {

		@Override
		@DistributedLock(key = "'inherit:' + #orderId")
		public int pay(long orderId) {
			return lockedOn("inherit:" + orderId);
		}

	}

	static class InheritingService extends BaseService {

		@DistributedLock(key = "'inherit:' + #orderId")
		public int pay(long orderId) {
			return lockedOn("inherit:" + orderId);
		}

	}

}
