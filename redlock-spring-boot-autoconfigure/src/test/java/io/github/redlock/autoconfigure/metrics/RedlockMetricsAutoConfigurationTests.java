package io.github.redlock.autoconfigure.metrics;

import java.time.Duration;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockRegistry;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.metrics.RedlockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Micrometer metrics of the locks, with Boot's metrics auto-configuration, against real
 * nodes.
 */
class RedlockMetricsAutoConfigurationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
				RedlockAutoConfiguration.class, RedlockMetricsAutoConfiguration.class))
		.withPropertyValues(FleetProperties.of(fleet, "redlock.node-timeout=200ms"));

	private final ApplicationContextRunner withoutMeterRegistry = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockMetricsAutoConfiguration.class))
		.withPropertyValues(FleetProperties.of(fleet));

	@Test
	void acquisitionsLeasesAndTheirOutcomesAreMeasured() {
		this.contextRunner.run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			LockRegistry locks = context.getBean(LockRegistry.class);
			try (Lease lease = locks.acquire("order:1", Duration.ofSeconds(10), Duration.ofSeconds(1))) {
				assertThat(meters.get("redlock.leases.active").gauge().value()).isEqualTo(1.0);
				// the lock is reentrant per thread: contend from a second one
				Thread contender = new Thread(
						() -> assertThat(locks.tryAcquire("order:1", Duration.ofSeconds(10))).as("the lock is held")
							.isEmpty());
				contender.start();
				contender.join();
			}
			assertThat(timer(meters, "redlock.acquire", "result", "acquired").count()).isEqualTo(1);
			assertThat(
					meters.get("redlock.acquire").tag("result", "not_acquired").tag("reason", "held").timer().count())
				.isEqualTo(1);
			assertThat(meters.get("redlock.acquire").tag("result", "acquired").tag("reason", "none").timer().count())
				.isEqualTo(1);
			assertThat(timer(meters, "redlock.lease", "outcome", "released").count()).isEqualTo(1);
			assertThat(timer(meters, "redlock.lease", "outcome", "lost").count()).isZero();
			assertThat(meters.get("redlock.leases.active").gauge().value()).isZero();
			// without the restart guard a new key's counters start at each node's
			// microsecond: its one acquisition may have needed a second round, not more
			assertThat(meters.get("redlock.fencing.second.rounds").functionCounter().count()).isBetween(0.0, 1.0);
		});
	}

	@Test
	void aFailureForWantOfNodesIsTaggedNoQuorumAndAFailureForABusyLockHeld() {
		this.contextRunner.run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			LockRegistry locks = context.getBean(LockRegistry.class);
			fleet.node(0).kill();
			fleet.node(1).kill();
			assertThatThrownBy(() -> locks.acquire("unreachable", Duration.ofSeconds(10), Duration.ofSeconds(1)))
				.isInstanceOfSatisfying(LockAcquisitionException.class,
						(ex) -> assertThat(ex.getReason()).isEqualTo(LockAcquisitionException.Reason.NO_QUORUM));
			assertThat(meters.get("redlock.acquire")
				.tag("result", "not_acquired")
				.tag("reason", "no_quorum")
				.timer()
				.count()).isEqualTo(1);
			assertThat(
					meters.get("redlock.acquire").tag("result", "not_acquired").tag("reason", "held").timer().count())
				.isZero();
		});
	}

	@Test
	void aLostLeaseIsMeasured() {
		this.contextRunner.run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			RedlockRegistry locks = context.getBean(RedlockRegistry.class);
			Lease lease = locks.acquire("doomed", Duration.ofSeconds(2), Duration.ofSeconds(1), true);
			fleet.node(0).kill();
			fleet.node(1).kill();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> timer(meters, "redlock.lease", "outcome", "lost").count() == 1);
			lease.release();
			assertThat(timer(meters, "redlock.lease", "outcome", "released").count()).isZero();
		});
	}

	@Test
	void toleratedFailuresDropFromOneToZeroWhenOneOfThreeNodesIsKilled() {
		this.contextRunner.run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> gauge(meters, "redlock.nodes.usable") == 3);
			assertThat(gauge(meters, "redlock.nodes.quorum")).isEqualTo(2);
			assertThat(gauge(meters, "redlock.nodes.tolerated.failures")).isEqualTo(1);
			fleet.node(2).kill();
			await().atMost(Duration.ofSeconds(10)).until(() -> gauge(meters, "redlock.nodes.usable") == 2);
			assertThat(gauge(meters, "redlock.nodes.tolerated.failures")).as("the next node to fail stops every lock")
				.isZero();
			fleet.node(1).kill();
			await().atMost(Duration.ofSeconds(10)).until(() -> gauge(meters, "redlock.nodes.usable") == 1);
			assertThat(gauge(meters, "redlock.nodes.tolerated.failures")).as("never negative").isZero();
			assertThat(meters.get("redlock.nodes.tolerated.failures").gauge().getId().getDescription())
				.contains("alert at 0");
		});
	}

	@Test
	void withObservationsTheLocksAreTimedOnceThroughThem() {
		// issue 25, item 10; failed before the fix: redlock.acquire and redlock.lease
		// timed the same events as the redlock.acquisition and redlock.hold observations
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(
					org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration.class,
					io.github.redlock.autoconfigure.observation.RedlockObservationAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(RedlockMetrics.class)
					.hasSingleBean(io.github.redlock.metrics.RedlockRegistryMeterBinder.class);
				context.getBean(LockRegistry.class)
					.acquire("once", Duration.ofSeconds(2), Duration.ofSeconds(1))
					.close();
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.find("redlock.acquisition").timer()).isNotNull();
				assertThat(meters.find("redlock.acquire").meters()).isEmpty();
				assertThat(meters.find("redlock.lease").meters()).isEmpty();
				assertThat(meters.find("redlock.leases.active").gauge()).isNotNull();
			});
	}

	@Test
	void theDeprecatedTimersCanBeKeptWhileDashboardsMove() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(
					org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration.class,
					io.github.redlock.autoconfigure.observation.RedlockObservationAutoConfiguration.class))
			.withPropertyValues("redlock.metrics.legacy-timers=true")
			.run((context) -> assertThat(context).hasSingleBean(RedlockMetrics.class));
	}

	@Test
	void absentWithoutAMeterRegistry() {
		this.withoutMeterRegistry
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedlockMetrics.class));
	}

	@Test
	void absentWithoutMicrometer() {
		this.withoutMeterRegistry.withClassLoader(new FilteredClassLoader("io.micrometer"))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedlockMetrics.class));
	}

	@Test
	void metersCanBeTurnedOffByPrefix() {
		this.contextRunner.withPropertyValues("management.metrics.enable.redlock=false").run((context) -> {
			context.getBean(LockRegistry.class)
				.acquire("quiet", Duration.ofSeconds(10), Duration.ofSeconds(1))
				.release();
			assertThat(context.getBean(MeterRegistry.class).find("redlock.acquire").timers())
				.allSatisfy((timer) -> assertThat(timer.count()).isZero());
		});
	}

	private static double gauge(MeterRegistry meters, String name) {
		return meters.get(name).gauge().value();
	}

	private static Timer timer(MeterRegistry meters, String name, String tag, String value) {
		return meters.get(name).tag(tag, value).timer();
	}

}
