package io.github.redlock.aop;

import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static io.github.redlock.aop.LockedServices.lockedOn;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Self-invocation (issue 25, item 5): as with {@code @Transactional}, a call from the
 * same bean ({@code this.pay()}) does not go through the proxy and runs unlocked; a call
 * through the bean's own proxy, injected into itself, is locked. This documents
 * proxy-based AOP; no fix in the library can make it fail, so it is no failing-first
 * test.
 */
class SelfInvocationIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
		.withUserConfiguration(Config.class)
		.withPropertyValues(FleetProperties.of(fleet));

	@BeforeEach
	void shareFleet() {
		LockedServices.fleet = fleet.fleet();
	}

	@Test
	void aCallThroughThisRunsUnlockedAndACallThroughTheInjectedSelfIsLocked() {
		this.contextRunner.run((context) -> {
			PaymentService service = context.getBean(PaymentService.class);
			assertThat(service.payThroughThis(7)).as("nodes holding the lock").isZero();
			assertThat(service.payThroughSelf(7)).as("nodes holding the lock").isGreaterThanOrEqualTo(2);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		PaymentService paymentService(ObjectProvider<PaymentService> self) {
			return new PaymentService(self);
		}

	}

	static class PaymentService {

		private final ObjectProvider<PaymentService> self;

		PaymentService(ObjectProvider<PaymentService> self) {
			this.self = self;
		}

		public int payThroughThis(long orderId) {
			return pay(orderId);
		}

		public int payThroughSelf(long orderId) {
			return this.self.getObject().pay(orderId);
		}

		@DistributedLock(key = "'self:' + #orderId")
		public int pay(long orderId) {
			return lockedOn("self:" + orderId);
		}

	}

}
