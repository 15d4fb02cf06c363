package io.github.redlock.aop;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.redlock.LockLostException;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static io.github.redlock.aop.LockedServices.assertReleased;
import static io.github.redlock.aop.LockedServices.lockedOn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The lock covers the commit, whatever the order of the lock and transaction advisors (in
 * the style of ShedLock's {@code AopOrderingTest}, with a real transaction manager).
 */
class TransactionOrderingIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@BeforeEach
	void shareFleet() {
		LockedServices.fleet = fleet.fleet();
	}

	private ApplicationContextRunner contextRunner(Class<?> transactions) {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
			.withUserConfiguration(transactions, Ledger.class)
			.withPropertyValues(FleetProperties.of(fleet));
	}

	@Test
	void byDefaultTheLockWrapsTheTransaction() {
		contextRunner(TransactionsAfterTheLock.class).run((context) -> {
			LedgerService ledger = context.getBean(LedgerService.class);
			List<Class<?>> advisors = new ArrayList<>();
			for (Advisor advisor : ((Advised) ledger).getAdvisors()) {
				advisors.add(advisor.getClass());
			}
			assertThat(advisors).containsSubsequence(DistributedLockAdvisor.class,
					BeanFactoryTransactionAttributeSourceAdvisor.class);
			List<String> events = ledger.write("entry", false);
			assertThat(events).containsExactly("committed under the lock", "completed under the lock");
			assertReleased("ledger");
			assertThat(ledger.rows()).isEqualTo(1);
		});
	}

	@Test
	void insideTheTransactionTheReleaseWaitsForTheCommit() {
		contextRunner(TransactionsAroundTheLock.class).run((context) -> {
			LedgerService ledger = context.getBean(LedgerService.class);
			List<Class<?>> advisors = new ArrayList<>();
			for (Advisor advisor : ((Advised) ledger).getAdvisors()) {
				advisors.add(advisor.getClass());
			}
			assertThat(advisors).containsSubsequence(BeanFactoryTransactionAttributeSourceAdvisor.class,
					DistributedLockAdvisor.class);
			List<String> events = ledger.write("entry", false);
			assertThat(events).containsExactly("committed under the lock", "completed under the lock");
			assertReleased("ledger");
			assertThat(ledger.rows()).isEqualTo(1);
		});
	}

	@Test
	void lockLostBeforeTheCommitRollsTheTransactionBack() {
		contextRunner(TransactionsAroundTheLock.class).withPropertyValues("redlock.default-ttl=1s").run((context) -> {
			LedgerService ledger = context.getBean(LedgerService.class);
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> ledger.write("lost", true))
				.withMessageContaining("Lock 'ledger' was lost");
			assertThat(ledger.rows()).isZero();
		});
	}

	@Test
	void lockLostBeforeTheCommitRollsTheTransactionBackInTheDefaultOrder() {
		// failed before the fix: in the default order the transaction begins and commits
		// inside the locked call, so nothing checked the lock before the commit; the
		// entry was written, and only then did the caller get LockLostException
		contextRunner(TransactionsAfterTheLock.class).withPropertyValues("redlock.default-ttl=1s").run((context) -> {
			LedgerService ledger = context.getBean(LedgerService.class);
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> ledger.write("lost", true))
				.withMessageContaining("Lock 'ledger' was lost");
			assertThat(ledger.rows()).isZero();
		});
	}

	@Test
	void aLockHeldThroughTheCommitLetsItCommitInTheDefaultOrderWithAUserTransactionManager() {
		contextRunner(TransactionsAfterTheLock.class).run((context) -> {
			LedgerService ledger = context.getBean(LedgerService.class);
			assertThat(ledger.write("kept", false)).containsExactly("committed under the lock",
					"completed under the lock");
			assertThat(ledger.rows()).isEqualTo(1);
		});
	}

	static class LedgerService {

		private final JdbcTemplate jdbc;

		LedgerService(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Transactional
		@DistributedLock(key = "'ledger'")
		public List<String> write(String entry, boolean loseTheLock) throws InterruptedException {
			this.jdbc.update("insert into ledger(entry) values (?)", entry);
			List<String> events = Collections.synchronizedList(new ArrayList<>());
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					events.add((lockedOn("ledger") >= 2) ? "committed under the lock" : "committed UNLOCKED");
				}

				@Override
				public void afterCompletion(int status) {
					events.add((lockedOn("ledger") >= 2) ? "completed under the lock" : "completed UNLOCKED");
				}

			});
			if (loseTheLock) {
				fleet.node(0).kill();
				fleet.node(1).kill();
				Thread.sleep(2000); // longer than the 1s TTL
			}
			return events;
		}

		public int rows() {
			return this.jdbc.queryForObject("select count(*) from ledger", Integer.class);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Ledger {

		@Bean
		DataSource dataSource() {
			return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
				.setName(UUID.randomUUID().toString())
				.addScript("classpath:ledger.sql")
				.build();
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		LedgerService ledgerService(DataSource dataSource) {
			return new LedgerService(new JdbcTemplate(dataSource));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class TransactionsAfterTheLock {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = 0)
	static class TransactionsAroundTheLock {

	}

}
