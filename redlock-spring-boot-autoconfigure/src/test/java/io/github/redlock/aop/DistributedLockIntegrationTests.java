package io.github.redlock.aop;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;
import io.github.redlock.LockRegistry;
import io.github.redlock.aop.LockedServices.InnerService;
import io.github.redlock.aop.LockedServices.Inventory;
import io.github.redlock.aop.LockedServices.Keys;
import io.github.redlock.aop.LockedServices.Order;
import io.github.redlock.aop.LockedServices.OrderService;
import io.github.redlock.aop.LockedServices.WarehouseInventory;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.PropertySourcesPlaceholderConfigurer;

import static io.github.redlock.aop.LockedServices.assertReleased;
import static io.github.redlock.aop.LockedServices.lockedOn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

class DistributedLockIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@BeforeEach
	void shareFleet() {
		LockedServices.fleet = fleet.fleet();
	}

	private ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
			.withUserConfiguration(Services.class)
			.withPropertyValues(FleetProperties.of(fleet, "redlock.node-timeout=250ms"));
	}

	@Test
	void lockIsHeldForTheWholeCallAndReleasedAfter() {
		contextRunner().run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThat(AopUtils.isCglibProxy(orders)).isTrue();
			assertThat(orders.pay(7)).isEqualTo("order:7 held");
			assertReleased("order:7");
		});
	}

	@Test
	void annotationKeyAndRegistryKeyContend() {
		contextRunner().run((context) -> {
			try (Lease lease = context.getBean(LockRegistry.class)
				.acquire("busy", Duration.ofSeconds(10), Duration.ZERO)) {
				assertThat(lease.isHeld()).isTrue();
				// from another thread: on this one the call would re-enter the held lock
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> onAnotherThread(() -> context.getBean(OrderService.class).busy()))
					.withMessageStartingWith("@DistributedLock on OrderService.busy(): Could not acquire lock 'busy'")
					.withMessageContaining("within 300ms");
			}
		});
	}

	@Test
	void keysAreSpelExpressionsOverArgumentsRootAndBeans() {
		contextRunner().run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThat(orders.byProperty(new Order(42))).isGreaterThanOrEqualTo(2);
			assertThat(orders.byP0("p-zero")).isGreaterThanOrEqualTo(2);
			assertThat(orders.byA0("a-zero")).isGreaterThanOrEqualTo(2);
			assertThat(orders.byMethodName()).isGreaterThanOrEqualTo(2);
			assertThat(orders.byBean(9)).isGreaterThanOrEqualTo(2);
		});
	}

	@Test
	void collectionKeyLocksEveryElementInOneOrder() {
		contextRunner().run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThat(orders.many(List.of("b", "c", "a", "b"))).containsExactly("a", "b", "c");
			assertReleased("a");
			assertReleased("b");
			assertReleased("c");
		});
	}

	@Test
	void collectionKeysInOppositeOrdersDoNotDeadlock() {
		contextRunner().run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			CompletableFuture<Void> forward = CompletableFuture
				.runAsync(() -> repeat(() -> orders.manyArray(new String[] { "x", "y" })));
			CompletableFuture<Void> backward = CompletableFuture
				.runAsync(() -> repeat(() -> orders.manyArray(new String[] { "y", "x" })));
			CompletableFuture.allOf(forward, backward).get(2, TimeUnit.MINUTES);
		});
	}

	private static void onAnotherThread(Runnable action) throws Throwable {
		try {
			CompletableFuture.runAsync(action).get(30, TimeUnit.SECONDS);
		}
		catch (java.util.concurrent.ExecutionException ex) {
			throw ex.getCause();
		}
	}

	private static void repeat(ThrowingRunnable action) {
		try {
			for (int i = 0; i < 30; i++) {
				action.run();
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	interface ThrowingRunnable {

		void run() throws Exception;

	}

	@Test
	void partOfACollectionHeldElsewhereLocksNothing() {
		contextRunner().run((context) -> {
			try (Lease held = context.getBean(LockRegistry.class)
				.acquire("m2", Duration.ofSeconds(30), Duration.ZERO)) {
				assertThat(held.isHeld()).isTrue();
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> onAnotherThread(
							() -> context.getBean(OrderService.class).many(List.of("m1", "m2", "m3"))))
					.withMessageContaining("'m2'");
				assertReleased("m1");
				assertReleased("m3");
			}
		});
	}

	/**
	 * A collection key had no size limit: a request with 100,000 ids locked 100,000 keys
	 * (this test failed before the fix). Over {@code redlock.max-keys}, nothing is locked
	 * and the error names the method, the size and the property.
	 */
	@Test
	void aCollectionKeyIsCappedByMaxKeys() {
		contextRunner().withPropertyValues("redlock.max-keys=3").run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThat(orders.many(List.of("c1", "c2", "c3"))).hasSize(3);
			assertThatIllegalArgumentException().isThrownBy(() -> orders.many(List.of("c1", "c2", "c3", "c4")))
				.withMessageContaining("OrderService.many(")
				.withMessageContaining("4 keys")
				.withMessageContaining("redlock.max-keys (3)");
			assertReleased("c1");
			// duplicates count once: they lock one key
			assertThat(orders.many(List.of("c1", "c1", "c2", "c2", "c3"))).hasSize(3);
		});
	}

	@Test
	void nullOrEmptyKeyIsAnErrorNamingTheMethod() {
		contextRunner().run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThatIllegalArgumentException().isThrownBy(() -> orders.nullable(null))
				.withMessage(
						"@DistributedLock key \"#key\" of OrderService.nullable(String) evaluated to null: a lock needs a non-empty key");
			assertThatIllegalArgumentException().isThrownBy(() -> orders.nullable(""))
				.withMessageContaining("evaluated to an empty key");
			assertThatIllegalArgumentException().isThrownBy(() -> orders.many(List.of()))
				.withMessageContaining("evaluated to an empty collection");
		});
	}

	@Test
	void durationsAcceptPlaceholders() {
		contextRunner().withPropertyValues("test.ttl=8s").run((context) -> {
			Duration validity = context.getBean(OrderService.class).placeholders();
			assertThat(validity).isGreaterThan(Duration.ofSeconds(5)).isLessThanOrEqualTo(Duration.ofSeconds(8));
		});
		contextRunner().run((context) -> assertThat(context.getBean(OrderService.class).placeholders())
			.isLessThanOrEqualTo(Duration.ofSeconds(3)));
	}

	@Test
	void lockIsKeptExtendedThroughALongCall() {
		contextRunner().run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThat(orders.longRunning(Duration.ofMillis(3000))).isGreaterThanOrEqualTo(2);
			assertReleased("long");
		});
	}

	@Test
	void lockLostDuringTheCallIsReportedWhenTheMethodReturns() {
		contextRunner().run((context) -> assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> context.getBean(OrderService.class).killsAMajority())
			.withMessageContaining("Lock 'doomed' was lost")
			.withMessageContaining("OrderService.killsAMajority()"));
	}

	@Test
	void lostLockCanBeLoggedInstead() {
		contextRunner().withPropertyValues("redlock.lost-lock-policy=log")
			.run((context) -> assertThat(context.getBean(OrderService.class).killsAMajority()).isEqualTo("finished"));
	}

	@Test
	void lockIsReleasedWhenTheMethodThrows() {
		contextRunner().run((context) -> {
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> context.getBean(OrderService.class).fails())
				.withMessage("disk full");
			assertReleased("failing");
		});
	}

	@Test
	void nestedCallsOnTheSameKeyAreReentrant() {
		contextRunner().run((context) -> {
			assertThat(context.getBean(OrderService.class).outer()).isPositive();
			assertReleased("nested");
		});
	}

	@Test
	void methodReadsItsFencingToken() {
		contextRunner().run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			long first = orders.token();
			assertThat(orders.token()).isGreaterThan(first);
			assertThat(CurrentLease.find()).isEmpty();
		});
	}

	@Test
	void metaAnnotationWorks() {
		contextRunner()
			.run((context) -> assertThat(context.getBean(OrderService.class).nightly()).isGreaterThanOrEqualTo(2));
	}

	@Test
	void interfaceBasedProxyWorks() {
		contextRunner().run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			assertThat(Proxy.isProxyClass(inventory.getClass())).isTrue();
			assertThat(inventory.reserve("A-1")).isGreaterThanOrEqualTo(2);
			assertReleased("sku:A-1");
		});
	}

	@Test
	void futureHoldsTheLockUntilItCompletes() {
		contextRunner().run((context) -> {
			CompletableFuture<String> gate = new CompletableFuture<>();
			CompletableFuture<String> result = context.getBean(OrderService.class).later(gate);
			await().atMost(Duration.ofSeconds(5)).until(() -> lockedOn("future") == 3);
			gate.complete("done");
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done held");
			assertReleased("future");
		});
	}

	@Test
	void monoAndFluxHoldTheLockFromSubscriptionToCompletion() {
		contextRunner().run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			var mono = orders.mono();
			assertThat(lockedOn("mono")).as("not before subscription").isZero();
			StepVerifier.create(mono).expectNextMatches((count) -> count >= 2).verifyComplete();
			assertReleased("mono");
			StepVerifier.create(orders.flux().all((count) -> count >= 2)).expectNext(true).verifyComplete();
			assertReleased("flux");
		});
	}

	@Test
	void monoAndFluxReadTheirLeaseFromTheReactorContext() {
		contextRunner().run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			StepVerifier.create(orders.monoToken()).expectNextMatches((token) -> token > 0).verifyComplete();
			StepVerifier.create(orders.fluxTokens().distinct().collectList())
				.expectNextMatches((tokens) -> tokens.size() == 1 && tokens.get(0) > 0)
				.verifyComplete();
			// outside a locked pipeline there is no lease
			StepVerifier.create(CurrentLease.mono()).verifyError(IllegalStateException.class);
		});
	}

	@Test
	void cancellingAMonoReleasesItsLock() {
		contextRunner().run((context) -> {
			Disposable subscription = context.getBean(OrderService.class).slowMono().subscribe();
			await().atMost(Duration.ofSeconds(10)).until(() -> lockedOn("mono-slow") == 3);
			subscription.dispose();
			await().atMost(Duration.ofSeconds(10)).until(() -> lockedOn("mono-slow") == 0);
		});
	}

	@Test
	void twoApplicationsContendOnOneKey() {
		contextRunner().run((first) -> contextRunner().run((second) -> {
			OrderService a = first.getBean(OrderService.class);
			OrderService b = second.getBean(OrderService.class);
			List<CompletableFuture<Void>> callers = new ArrayList<>();
			SharedCounter counter = new SharedCounter();
			for (OrderService service : List.of(a, b, a, b)) {
				callers.add(CompletableFuture.runAsync(() -> repeat(() -> {
					service.increment();
					counter.check(a, b);
				})));
			}
			CompletableFuture.allOf(callers.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
			assertThat(a.overlaps() + b.overlaps()).isZero();
		}));
	}

	/**
	 * Both applications' services are inside at most one at a time.
	 */
	static final class SharedCounter {

		void check(OrderService a, OrderService b) {
			assertThat(a.inside() + b.inside()).isLessThanOrEqualTo(1);
		}

	}

	@Test
	void badKeyExpressionFailsAtStartUpNamingTheMethod() {
		contextRunner().withUserConfiguration(BadKey.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidDistributedLockException.class)
				.hasMessageContaining(
						"@DistributedLock on BadKeyService.run(long): attribute key \"'order:' +\" is not a valid SpEL expression");
		});
	}

	@Test
	void badDurationFailsAtStartUpNamingTheMethodAndAttribute() {
		contextRunner().withUserConfiguration(BadDuration.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidDistributedLockException.class)
				.hasMessageContaining(
						"@DistributedLock on BadDurationService.run(): attribute waitTime \"ten seconds\" is not a duration")
				.hasMessageContaining("10s, 500ms, PT10S");
		});
	}

	@Test
	void durationWhosePlaceholderResolvesToNullFailsAtStartUpNamingTheMethodAndAttribute() {
		// a placeholder configurer with a null value ("@null") resolves a placeholder to
		// null. Found by NullAway; before, the start-up failed with
		// "NullPointerException: Cannot invoke String.trim() because "resolved" is null"
		contextRunner().withUserConfiguration(NullDuration.class)
			.withPropertyValues("test.lock-ttl=@null")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(InvalidDistributedLockException.class)
					.hasMessageContaining(
							"@DistributedLock on NullDurationService.run(): attribute ttl \"${test.lock-ttl}\" resolved to null");
			});
	}

	@Test
	void ttlAboveTheMaximumFailsAtStartUp() {
		contextRunner().withUserConfiguration(TooLong.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining(
						"@DistributedLock on TooLongService.run(): attribute ttl \"2m\" is above redlock.max-ttl");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		InnerService innerService() {
			return new InnerService();
		}

		@Bean
		OrderService orderService(InnerService innerService) {
			return new OrderService(innerService);
		}

		@Bean
		Keys keys() {
			return new Keys();
		}

		@Bean
		Inventory inventory() {
			return new WarehouseInventory();
		}

	}

	static class BadKeyService {

		@io.github.redlock.annotation.DistributedLock(key = "'order:' +")
		public void run(long id) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadKey {

		@Bean
		BadKeyService badKeyService() {
			return new BadKeyService();
		}

	}

	static class BadDurationService {

		@io.github.redlock.annotation.DistributedLock(key = "'x'", waitTime = "ten seconds")
		public void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadDuration {

		@Bean
		BadDurationService badDurationService() {
			return new BadDurationService();
		}

	}

	static class NullDurationService {

		@io.github.redlock.annotation.DistributedLock(key = "'x'", ttl = "${test.lock-ttl}")
		public void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NullDuration {

		@Bean
		static PropertySourcesPlaceholderConfigurer placeholders() {
			PropertySourcesPlaceholderConfigurer placeholders = new PropertySourcesPlaceholderConfigurer();
			placeholders.setNullValue("@null");
			return placeholders;
		}

		@Bean
		NullDurationService nullDurationService() {
			return new NullDurationService();
		}

	}

	static class TooLongService {

		@io.github.redlock.annotation.DistributedLock(key = "'x'", ttl = "2m")
		public void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TooLong {

		@Bean
		TooLongService tooLongService() {
			return new TooLongService();
		}

	}

}
