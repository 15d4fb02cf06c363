package io.github.redlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockRegistry;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.cache.interceptor.BeanFactoryCacheOperationSourceAdvisor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static io.github.redlock.aop.LockedServices.lockedOn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @Cacheable}, {@code @DistributedLock} and {@code @Transactional} on one method
 * (issue 25, item 4): by default the cache is outside the lock and the lock outside the
 * transaction, so a cache hit returns at once, with no quorum round trip, and a miss
 * computes under the lock, inside a transaction. An explicit {@code redlock.order} puts
 * the lock where the application says.
 */
class CacheOrderingIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
		.withUserConfiguration(CachingConfig.class)
		.withPropertyValues(FleetProperties.of(fleet, "redlock.node-timeout=250ms"));

	@BeforeEach
	void shareFleet() {
		LockedServices.fleet = fleet.fleet();
	}

	@Test
	void byDefaultACacheHitTakesNoLockAndAMissComputesUnderTheLockInsideATransaction() {
		// failed before the fix: the lock was outside the cache, so the hit waited for
		// the lock held elsewhere and failed with LockAcquisitionException
		this.contextRunner.run((context) -> {
			PriceService service = context.getBean(PriceService.class);
			assertThat(advisors(service)).containsSubsequence(BeanFactoryCacheOperationSourceAdvisor.class,
					DistributedLockAdvisor.class, BeanFactoryTransactionAttributeSourceAdvisor.class);
			assertThat(service.price(1)).isEqualTo("price 1 locked in a transaction");
			assertThat(service.computed()).isEqualTo(1);
			try (Lease held = heldElsewhere(context.getBean(LockRegistry.class), "price:1")) {
				assertThat(held.isHeld()).isTrue();
				assertThat(service.price(1)).isEqualTo("price 1 locked in a transaction");
			}
			assertThat(service.computed()).isEqualTo(1);
		});
	}

	@Test
	void anExplicitOrderPutsTheLockOutsideTheCache() {
		// the lock-then-check pattern some applications want: every call takes the lock
		this.contextRunner.withPropertyValues("redlock.order=0").run((context) -> {
			PriceService service = context.getBean(PriceService.class);
			assertThat(advisors(service)).containsSubsequence(DistributedLockAdvisor.class,
					BeanFactoryCacheOperationSourceAdvisor.class);
			service.price(2);
			try (Lease held = heldElsewhere(context.getBean(LockRegistry.class), "price:2")) {
				assertThat(held.isHeld()).isTrue();
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> service.price(2));
			}
		});
	}

	/**
	 * Acquires the lock on another thread, so that this thread's calls cannot re-enter
	 * it.
	 */
	private static Lease heldElsewhere(LockRegistry registry, String key) throws Exception {
		return CompletableFuture.supplyAsync(() -> {
			try {
				return registry.acquire(key, Duration.ofSeconds(10), Duration.ZERO);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}).get(10, TimeUnit.SECONDS);
	}

	private static List<Class<?>> advisors(Object bean) {
		List<Class<?>> advisors = new ArrayList<>();
		for (Advisor advisor : ((Advised) bean).getAdvisors()) {
			advisors.add(advisor.getClass());
		}
		return advisors;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	@EnableTransactionManagement
	static class CachingConfig {

		@Bean
		CacheManager cacheManager() {
			return new ConcurrentMapCacheManager("prices");
		}

		@Bean
		DataSource dataSource() {
			return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).generateUniqueName(true).build();
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		PriceService priceService() {
			return new PriceService();
		}

	}

	static class PriceService {

		private final AtomicInteger computed = new AtomicInteger();

		@Cacheable("prices")
		@DistributedLock(key = "'price:' + #id", waitTime = "0s")
		@Transactional
		public String price(long id) {
			this.computed.incrementAndGet();
			return "price " + id + ((lockedOn("price:" + id) >= 2) ? " locked" : " NOT locked")
					+ (TransactionSynchronizationManager.isActualTransactionActive() ? " in a transaction"
							: " outside a transaction");
		}

		public int computed() {
			return this.computed.get();
		}

	}

}
