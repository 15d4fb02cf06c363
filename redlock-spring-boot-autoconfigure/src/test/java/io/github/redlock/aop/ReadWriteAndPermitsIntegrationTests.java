package io.github.redlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockRegistry;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.annotation.LockMode;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @DistributedLock(mode = READ | WRITE)} and {@code @DistributedLock(permits = N)}
 * in a Spring Boot application on three real nodes.
 */
class ReadWriteAndPermitsIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
			.withUserConfiguration(Services.class)
			.withPropertyValues(FleetProperties.of(fleet, "redlock.node-timeout=250ms"));
	}

	@Test
	void readersRunTogetherAndAWriterAlone() {
		contextRunner().run((context) -> {
			Catalogue catalogue = context.getBean(Catalogue.class);
			CountDownLatch bothIn = new CountDownLatch(2);
			List<CompletableFuture<Boolean>> readers = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				// each waits inside its read lock until both are in: only shared locks
				// let it
				readers.add(CompletableFuture.supplyAsync(() -> catalogue.read(bothIn)));
			}
			for (CompletableFuture<Boolean> reader : readers) {
				assertThat(reader.get(30, TimeUnit.SECONDS)).isTrue();
			}
			// the write lock and the exclusive lock of the key contend with a reader
			try (Lease read = context.getBean(LockRegistry.class)
				.acquireRead("catalogue", Duration.ofSeconds(10), Duration.ZERO)) {
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> onAnotherThread(catalogue::write))
					.withMessageStartingWith(
							"@DistributedLock on Catalogue.write(): Could not acquire lock 'catalogue'");
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> onAnotherThread(catalogue::exclusive));
			}
			assertThat(catalogue.write()).isEqualTo("written");
			assertThat(catalogue.writeThenRead()).isEqualTo("read inside write");
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(catalogue::readThenWrite)
				.withMessageContaining("never upgraded");
		});
	}

	/**
	 * An upgrade is refused because this thread's own read lock is in the way, which
	 * waiting cannot mend: {@code skipIfLocked} must not take it for a lock held
	 * elsewhere. Before the refusal had a reason of its own (it was {@code HELD}), the
	 * inner call was skipped without a word: "Expecting code to raise a throwable".
	 */
	@Test
	void anUpgradeIsRefusedEvenWhereABusyLockWouldBeSkipped() {
		contextRunner().run((context) -> {
			Catalogue catalogue = context.getBean(Catalogue.class);
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(catalogue::readThenWriteIfFree)
				.withMessageContaining("never upgraded")
				.satisfies((ex) -> assertThat(ex.getReason().name()).isEqualTo("HELD_BY_THIS_THREAD"));
			// a write lock held by another owner is still skipped
			try (Lease read = context.getBean(LockRegistry.class)
				.acquireRead("catalogue", Duration.ofSeconds(10), Duration.ZERO)) {
				assertThat(CompletableFuture.supplyAsync(catalogue::writeIfFree).get(30, TimeUnit.SECONDS)).isEmpty();
			}
			assertThat(catalogue.writeIfFree()).contains("written if free");
		});
	}

	@Test
	void permitsBoundTheCallsRunningAtOnce() {
		contextRunner().run((context) -> {
			Exports exports = context.getBean(Exports.class);
			List<CompletableFuture<Void>> calls = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				calls.add(CompletableFuture.runAsync(exports::export));
			}
			CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
			System.out.println("permits: at most " + exports.most() + " of 6 calls ran at once under 2 permits");
			assertThat(exports.most()).isBetween(1, 2);
		});
	}

	@Test
	void permitsWithAModeOrOnAnAsyncMethodAreRefusedAtStartUp() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
			.withUserConfiguration(BadServices.class)
			.withPropertyValues(FleetProperties.of(fleet, "redlock.node-timeout=250ms"))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("attribute permits is set together with mode = READ"));
	}

	private static void onAnotherThread(Runnable action) throws Throwable {
		try {
			CompletableFuture.runAsync(action).get(30, TimeUnit.SECONDS);
		}
		catch (java.util.concurrent.ExecutionException ex) {
			throw ex.getCause();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Catalogue catalogue() {
			return new Catalogue();
		}

		@Bean
		Exports exports() {
			return new Exports();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadServices {

		@Bean
		BadService badService() {
			return new BadService();
		}

	}

	static class Catalogue {

		private Catalogue self;

		@DistributedLock(key = "'catalogue'", mode = LockMode.READ, waitTime = "10s")
		boolean read(CountDownLatch bothIn) {
			bothIn.countDown();
			try {
				return bothIn.await(20, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}

		@DistributedLock(key = "'catalogue'", mode = LockMode.WRITE, waitTime = "300ms")
		String write() {
			return "written";
		}

		@DistributedLock(key = "'catalogue'", waitTime = "300ms")
		String exclusive() {
			return "exclusive";
		}

		@DistributedLock(key = "'catalogue'", mode = LockMode.WRITE, waitTime = "2s")
		String writeThenRead() {
			return this.self.readOnly();
		}

		@DistributedLock(key = "'catalogue'", mode = LockMode.READ, waitTime = "2s")
		String readThenWrite() {
			return this.self.write();
		}

		@DistributedLock(key = "'catalogue'", mode = LockMode.READ, waitTime = "2s")
		Optional<String> readThenWriteIfFree() {
			return this.self.writeIfFree();
		}

		@DistributedLock(key = "'catalogue'", mode = LockMode.WRITE, skipIfLocked = true)
		Optional<String> writeIfFree() {
			return Optional.of("written if free");
		}

		@DistributedLock(key = "'catalogue'", mode = LockMode.READ, waitTime = "2s")
		String readOnly() {
			return "read inside write";
		}

		@org.springframework.beans.factory.annotation.Autowired
		void setSelf(@org.springframework.context.annotation.Lazy Catalogue self) {
			this.self = self;
		}

	}

	static class Exports {

		final AtomicInteger running = new AtomicInteger();

		final AtomicInteger most = new AtomicInteger();

		int most() {
			return this.most.get(); // through the proxy: its own fields are not the
									// bean's
		}

		@DistributedLock(key = "'exports'", permits = 2, waitTime = "30s")
		void export() {
			int now = this.running.incrementAndGet();
			this.most.accumulateAndGet(now, Math::max);
			try {
				Thread.sleep(150);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.running.decrementAndGet();
			}
		}

	}

	static class BadService {

		@DistributedLock(key = "'bad'", mode = LockMode.READ, permits = 2)
		void bad() {
		}

	}

}
