package io.github.redlock.aop;

import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static io.github.redlock.aop.LockedServices.lockedOn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A key that names no parameter, a key with a null part, and an annotation TTL no lock
 * can be valid for (issue 11, items 5 and 7; issue 39). Each failed before its fix: the
 * typo'd key started and locked one global {@code order:null}, the null part did the same
 * at call time, and the short TTL started and failed only at the first call.
 */
class KeyAndTtlCheckIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
		.withPropertyValues(FleetProperties.of(fleet, "redlock.node-timeout=250ms"));

	@BeforeEach
	void shareFleet() {
		LockedServices.fleet = fleet.fleet();
	}

	@Test
	void aKeyNamingNoParameterStopsStartUpNamingTheParametersThatExist() {
		this.contextRunner.withUserConfiguration(TypoConfig.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidDistributedLockException.class)
				.hasMessageContaining("@DistributedLock on TypoService.pay(long, String): attribute key")
				.hasMessageContaining("#orderID")
				.hasMessageContaining("#orderId, #currency");
		});
	}

	@Test
	void parameterIndexesAndRootVariablesAreAccepted() {
		this.contextRunner.withUserConfiguration(GoodConfig.class).run((context) -> {
			assertThat(context).hasNotFailed();
			GoodService service = context.getBean(GoodService.class);
			assertThat(service.indexes(7, "x")).isGreaterThanOrEqualTo(2);
			assertThat(service.root()).isGreaterThanOrEqualTo(2);
		});
	}

	@Test
	void aKeyWithANullPartIsAnErrorNamingTheMethod() {
		this.contextRunner.withUserConfiguration(GoodConfig.class).run((context) -> {
			GoodService service = context.getBean(GoodService.class);
			assertThatIllegalArgumentException().isThrownBy(() -> service.order(new Order(null)))
				.withMessageContaining("GoodService.order(Order)")
				.withMessageContaining("#order.id")
				.withMessageContaining("null");
			assertThat(service.order(new Order(9L))).isGreaterThanOrEqualTo(2);
			assertThat(lockedOn("order:null")).isZero();
		});
	}

	@Test
	void anAnnotationTtlNoLockCanBeValidForStopsStartUp() {
		this.contextRunner.withUserConfiguration(TooShortTtlConfig.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidDistributedLockException.class)
				.hasMessageContaining("@DistributedLock on TooShortTtlService.run(): attribute ttl \"2ms\"")
				.hasMessageContaining("clock drift")
				.hasMessageContaining("at least 3ms");
		});
	}

	@Test
	void anAnnotationTtlBelowThreeNodeTimeoutsStartsUp() {
		// issue 39: with this runner's node timeout (250 ms), "50ms" stopped the start-up
		// before ("is under 3 times redlock.node-timeout (250ms): a lock could not be
		// valid after waiting for the nodes"). ShortTtlIntegrationTests checks a 50 ms
		// lock on the nodes; a call here would hold it across this loaded machine's
		// pauses, longer than 50 ms
		this.contextRunner.withUserConfiguration(ShortTtlConfig.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(ShortTtlService.class);
		});
	}

	@Test
	void eachPartOfAKeyIsEvaluatedOnce() {
		// issue 25, item 3; failed before the fix: each part was evaluated once for the
		// null check and again in the whole key (expected 1 call, saw 2), so the lock
		// was taken on "seq:2" while the check had seen 1
		this.contextRunner.withUserConfiguration(PartsConfig.class).run((context) -> {
			PartsService service = context.getBean(PartsService.class);
			Sequence sequence = context.getBean("sequence", Sequence.class);
			assertThat(service.bySequence()).isGreaterThanOrEqualTo(2);
			assertThat(sequence.calls()).isEqualTo(1);
		});
	}

	@Test
	void aQuotedBeanReferenceInAKeyPartWorks() {
		// issue 25, item 3; failed before the fix: the part was re-parsed from
		// toStringAST(), which prints @'order-service' as @order-service, so each call
		// failed (or the context did not start)
		this.contextRunner.withUserConfiguration(PartsConfig.class).run((context) -> {
			assertThat(context).hasNotFailed();
			PartsService service = context.getBean(PartsService.class);
			assertThat(service.byQuotedBean()).isGreaterThanOrEqualTo(2);
		});
	}

	@Test
	void aNullPartIsStillFoundInAKeyOfManyParts() {
		this.contextRunner.withUserConfiguration(PartsConfig.class).run((context) -> {
			PartsService service = context.getBean(PartsService.class);
			assertThatIllegalArgumentException().isThrownBy(() -> service.twoParts(null, 1))
				.withMessageContaining("null");
			assertThat(service.twoParts("a", 2)).isGreaterThanOrEqualTo(2);
			// numbers still add as SpEL adds them: the key is "k:" + "a" + 2 + 3
			assertThat(service.numbers(2, 3)).isGreaterThanOrEqualTo(2);
		});
	}

	record Order(Long id) {
	}

	@Configuration(proxyBeanMethods = false)
	static class PartsConfig {

		@Bean
		PartsService partsService() {
			return new PartsService();
		}

		@Bean
		Sequence sequence() {
			return new Sequence();
		}

		@Bean("order-service")
		Sequence orderService() {
			return new Sequence();
		}

	}

	static class Sequence {

		private final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();

		public int next() {
			return this.calls.incrementAndGet();
		}

		public String name() {
			return "orders";
		}

		public int calls() {
			return this.calls.get();
		}

	}

	static class PartsService {

		@DistributedLock(key = "'seq:' + @sequence.next()")
		public int bySequence() {
			return lockedOn("seq:1");
		}

		@DistributedLock(key = "'svc:' + @'order-service'.name()")
		public int byQuotedBean() {
			return lockedOn("svc:orders");
		}

		@DistributedLock(key = "'k:' + #name + ':' + #n")
		public int twoParts(String name, int n) {
			return lockedOn("k:" + name + ":" + n);
		}

		@DistributedLock(key = "(#a + #b) + ':sum'")
		public int numbers(int a, int b) {
			return lockedOn((a + b) + ":sum");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TypoConfig {

		@Bean
		TypoService typoService() {
			return new TypoService();
		}

	}

	static class TypoService {

		@DistributedLock(key = "'order:' + #orderID")
		public void pay(long orderId, String currency) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class GoodConfig {

		@Bean
		GoodService goodService() {
			return new GoodService();
		}

	}

	static class GoodService {

		@DistributedLock(key = "'idx:' + #p0 + ':' + #a1")
		public int indexes(long id, String name) {
			return lockedOn("idx:7:x");
		}

		@DistributedLock(key = "#root.methodName + ':' + #root.targetClass.simpleName")
		public int root() {
			return lockedOn("root:GoodService");
		}

		@DistributedLock(key = "'order:' + #order.id")
		public int order(Order order) {
			return lockedOn("order:" + order.id());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ShortTtlConfig {

		@Bean
		ShortTtlService shortTtlService() {
			return new ShortTtlService();
		}

	}

	static class ShortTtlService {

		@DistributedLock(key = "'short'", ttl = "50ms")
		public void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TooShortTtlConfig {

		@Bean
		TooShortTtlService tooShortTtlService() {
			return new TooShortTtlService();
		}

	}

	static class TooShortTtlService {

		@DistributedLock(key = "'too-short'", ttl = "2ms")
		public void run() {
		}

	}

}
