package io.github.redlock.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * How long a {@code @DistributedLock} method's lock lives, as the docs say: kept extended
 * while the method runs but no longer than {@code redlock.max-hold} (the caller then gets
 * {@code LockLostException}, docs/annotation.md "Lost while running"); not extended at
 * all with {@code autoExtend = false}; and with {@code skipIfLocked}, only a lock held
 * elsewhere is skipped, too few nodes still throw. Each method waits for what the nodes
 * say (the key gone), not for a fixed time.
 */
class LockLifetimeIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private ApplicationContextRunner contextRunner(String... properties) {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
			.withUserConfiguration(Jobs.class)
			.withPropertyValues(FleetProperties.of(fleet, properties));
	}

	@Test
	void aMethodThatOutlivesTheMaximumHoldLosesItsLockAndItsCallerGetsLockLostException() {
		contextRunner("redlock.default-ttl=1s", "redlock.max-ttl=1s", "redlock.max-hold=3s").run((context) -> {
			LifetimeJobs jobs = context.getBean(LifetimeJobs.class);
			long start = System.nanoTime();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(jobs::outlivesTheMaximumHold)
				.withMessageContaining("'max-hold-job'")
				.withMessageContaining("LifetimeJobs.outlivesTheMaximumHold()");
			// kept past twice its 1 s TTL: the watchdog extended it until the cut
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofSeconds(2));
			assertThat(jobs.heldPastItsTtl()).as("held on a quorum after its first TTL").isDone();
		});
	}

	@Test
	void withoutAutoExtendTheLockExpiresOnTheNodesWhileTheMethodStillRuns() {
		contextRunner().run((context) -> {
			LifetimeJobs jobs = context.getBean(LifetimeJobs.class);
			// the caller then gets LockLostException: the lock was not held to the end
			assertThatExceptionOfType(LockLostException.class).isThrownBy(jobs::notExtended)
				.withMessageContaining("'not-extended'");
			// extended, the key would have stayed and the method's wait timed out
			assertThat(jobs.expiredWhileRunning()).as("the key gone from every node while the method ran").isDone();
			System.out.println("autoExtend = false: the 1s lock expired on every node "
					+ jobs.expiredWhileRunning().get() + "ms into the method");
		});
	}

	/**
	 * {@code DistributedLock#skipIfLocked}: "Only a lock held elsewhere is skipped: too
	 * few usable nodes still throws, since then no instance can run the job."
	 */
	@Test
	void skipIfLockedStillThrowsWhenTooFewNodesAreUp() {
		contextRunner().run((context) -> {
			LifetimeJobs jobs = context.getBean(LifetimeJobs.class);
			jobs.skippable(); // runs while the fleet is whole
			assertThat(jobs.skippableRuns()).hasValue(1);
			fleet.node(0).kill();
			fleet.node(1).kill();
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(jobs::skippable)
				.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(LockAcquisitionException.Reason.NO_QUORUM));
			assertThat(jobs.skippableRuns()).as("runs without a quorum").hasValue(1);
		});
	}

	private static long lockedOn(String key) {
		return fleet.fleet()
			.nodes()
			.stream()
			.filter(RedisNode::isRunning)
			.filter((node) -> node.call("GET", "redlock:lock:{" + key + "}") != null)
			.count();
	}

	@Configuration(proxyBeanMethods = false)
	static class Jobs {

		@Bean
		LifetimeJobs lifetimeJobs() {
			return new LifetimeJobs();
		}

	}

	static class LifetimeJobs {

		private final CompletableFuture<Void> heldPastItsTtl = new CompletableFuture<>();

		private final CompletableFuture<Long> expiredWhileRunning = new CompletableFuture<>();

		private final AtomicInteger skippableRuns = new AtomicInteger();

		// read through methods: the bean is a class-based proxy, whose own fields are
		// not the target's

		public CompletableFuture<Void> heldPastItsTtl() {
			return this.heldPastItsTtl;
		}

		public CompletableFuture<Long> expiredWhileRunning() {
			return this.expiredWhileRunning;
		}

		public AtomicInteger skippableRuns() {
			return this.skippableRuns;
		}

		@DistributedLock(key = "'max-hold-job'", ttl = "1s")
		public void outlivesTheMaximumHold() {
			long start = System.nanoTime();
			// extended past its TTL, then cut at the 3 s maximum hold: the key goes
			await().atMost(Duration.ofSeconds(20)).until(() -> {
				if (System.nanoTime() - start > Duration.ofMillis(1500).toNanos() && lockedOn("max-hold-job") >= 2) {
					this.heldPastItsTtl.complete(null);
				}
				return lockedOn("max-hold-job") == 0;
			});
		}

		@DistributedLock(key = "'not-extended'", ttl = "1s", autoExtend = false)
		public void notExtended() {
			long start = System.nanoTime();
			await().atMost(Duration.ofSeconds(20)).until(() -> lockedOn("not-extended") == 0);
			this.expiredWhileRunning.complete(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
		}

		@DistributedLock(key = "'skippable'", skipIfLocked = true)
		public void skippable() {
			this.skippableRuns.incrementAndGet();
		}

	}

}
