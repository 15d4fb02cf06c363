package io.github.redlock.shedlock.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.shedlock.RedlockLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The auto-configured {@link RedlockLockProvider}, and two application instances over one
 * fleet running one {@code @Scheduled @SchedulerLock} job: it runs on one instance at a
 * time, once per {@code lockAtLeastFor} at most, and its lock name contends with
 * {@code LockRegistry} acquisitions of the same key.
 */
class RedlockShedLockAutoConfigurationIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	/** Every run of the job, on either instance, in the order they started. */
	static final List<Run> runs = new CopyOnWriteArrayList<>();

	static final AtomicInteger running = new AtomicInteger();

	static final AtomicInteger overlaps = new AtomicInteger();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockShedLockAutoConfiguration.class))
		.withPropertyValues(properties());

	@Test
	void providesTheLockProviderOverTheRegistry() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LockProvider.class);
			assertThat(context.getBean(LockProvider.class)).isInstanceOf(RedlockLockProvider.class);
		});
	}

	@Test
	void backsOffWhenTheApplicationDefinesALockProvider() {
		this.contextRunner.withUserConfiguration(OwnProvider.class).run((context) -> {
			assertThat(context).hasSingleBean(LockProvider.class);
			assertThat(context.getBean(LockProvider.class)).isSameAs(OwnProvider.PROVIDER);
		});
	}

	@Test
	void backsOffWithoutALockRegistry() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedlockShedLockAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LockProvider.class));
	}

	@Test
	void aScheduledJobRunsOnOneInstanceAtATimeAndContendsWithTheRegistry() throws Exception {
		runs.clear();
		overlaps.set(0);
		try (ConfigurableApplicationContext first = start("first");
				ConfigurableApplicationContext second = start("second")) {
			await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() >= 6);
			// the job's lock is the registry key "shedlock-report": hold it from outside
			LockRegistry locks = first.getBean(LockRegistry.class);
			// the registry's own retries (every 50-100 ms) find the moment between a
			// run's lockAtLeastFor running out and the next tick; polling with tryAcquire
			// found none in 10 s once in CI, with ticks every 200 ms landing just as each
			// 400 ms hold ran out
			Lease held = locks.acquire("shedlock-report", Duration.ofSeconds(5), Duration.ofSeconds(30));
			int before = runs.size();
			long heldFrom = System.nanoTime();
			Thread.sleep(1500); // holding for a stated time: several periods
			long heldTo = System.nanoTime();
			held.release();
			List<Run> during = runs.subList(before, runs.size())
				.stream()
				.filter((run) -> run.start > heldFrom && run.start < heldTo)
				.toList();
			assertThat(during).as("runs while the registry held the key").isEmpty();
			await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() >= before + 3);
			// counted before the contexts close: closing a registry releases the lock of
			// a run still going
			assertThat(overlaps.get()).as("runs that overlapped another").isZero();
		}
		List<Run> all = new ArrayList<>(runs);
		assertThat(all.stream().map(Run::instance).distinct()).as("instances that ran the job").isNotEmpty();
		for (int i = 1; i < all.size(); i++) {
			// each run's lock stays until its lockAtLeastUntil (ShedLock's createdAt,
			// taken
			// before it asks for the lock, plus 400ms): a later run's lock can be granted
			// only after that. Measured on the provider's side, not from when the runs
			// began: under load a thread that has the lock may start its run late, and a
			// bound on run starts (350ms apart) failed for that reason alone. 2ms allow
			// for
			// the millisecond rounding of the hold's end on the nodes.
			long early = Duration.between(all.get(i).lockGrantedAt, all.get(i - 1).lockAtLeastUntil).toMillis();
			assertThat(early)
				.as("ms by which run %d's lock came before run %d's lockAtLeastUntil, of %s", i, i - 1, all)
				.isLessThanOrEqualTo(2);
		}
		System.out.printf("ShedLock job: %d runs on %s%n", all.size(),
				all.stream().map(Run::instance).distinct().toList());
	}

	@Test
	void aJobLockIsRefusedToTheRegistryWhileTheProviderHoldsIt() {
		this.contextRunner.run((context) -> {
			LockProvider provider = context.getBean(LockProvider.class);
			Optional<SimpleLock> lock = provider.lock(new LockConfiguration(java.time.Instant.now(), "shedlock-held",
					Duration.ofSeconds(30), Duration.ZERO));
			assertThat(lock).isNotEmpty();
			assertThat(context.getBean(LockRegistry.class).tryAcquire("shedlock-held", Duration.ofSeconds(5)))
				.isEmpty();
			lock.get().unlock();
			context.getBean(LockRegistry.class)
				.tryAcquire("shedlock-held", Duration.ofSeconds(5))
				.orElseThrow()
				.release();
		});
	}

	// Issue 24: a @SchedulerLock whose lockAtMostFor is above redlock.max-hold (1h by
	// default) fails the start-up, naming the method, and the failure analysis gives the
	// fix. Failed before: the context started, and every run of the task failed with an
	// IllegalArgumentException at run time.
	@Test
	void aSchedulerLockAboveTheMaximumHoldFailsTheStartUpWithTheFix() {
		this.contextRunner.withUserConfiguration(NightlyJob.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("redlock.max-hold (1h)", "lockAtMostFor \"2h\"",
					"@SchedulerLock(name = \"nightly\")", NightlyJob.class.getName() + ".run()");
			assertThat(analysis.getAction()).contains("redlock.max-hold=2h", "lower lockAtMostFor");
		});
	}

	// Issue 24: the same for @EnableSchedulerLock's defaultLockAtMostFor, placeholders
	// resolved as ShedLock resolves them. Failed before: the context started.
	@Test
	void aDefaultLockAtMostForAboveTheMaximumHoldFailsTheStartUpWithTheFix() {
		this.contextRunner.withUserConfiguration(LongDefault.class)
			.withPropertyValues("jobs.at-most=3h")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("defaultLockAtMostFor \"${jobs.at-most}\" (3h)");
				assertThat(analysis.getAction()).contains("redlock.max-hold=3h");
			});
	}

	@Test
	void schedulerLocksWithinTheMaximumHoldStart() {
		this.contextRunner.withUserConfiguration(NightlyJob.class)
			.withPropertyValues("redlock.max-hold=2h")
			.run((context) -> assertThat(context).hasNotFailed());
		this.contextRunner.withUserConfiguration(LongDefault.class)
			.withPropertyValues("jobs.at-most=30m")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void theFailureAnalyzerIsRegistered() {
		// analyzers that need constructor arguments are left out: only ours matters
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, null, SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> {
			}))).hasAtLeastOneElementOfType(SchedulerLockMaxHoldFailureAnalyzer.class);
	}

	private static FailureAnalysis analyze(Throwable failure) {
		FailureAnalysis analysis = new SchedulerLockMaxHoldFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("analysis of %s", failure).isNotNull();
		return analysis;
	}

	private static ConfigurableApplicationContext start(String instance) {
		List<String> args = new ArrayList<>();
		for (String property : properties()) {
			args.add("--" + property);
		}
		args.add("--instance=" + instance);
		return new SpringApplicationBuilder(JobApplication.class).web(WebApplicationType.NONE)
			.run(args.toArray(String[]::new));
	}

	private static String[] properties() {
		List<String> properties = new ArrayList<>();
		List<String> uris = fleet.uris();
		for (int i = 0; i < uris.size(); i++) {
			properties.add("redlock.nodes[" + i + "]=" + uris.get(i));
		}
		properties.add("redlock.restart-guard=false");
		return properties.toArray(String[]::new);
	}

	/**
	 * One run of the job: the instance, when it began, and its lock's
	 * {@code lockAtLeastUntil} and the moment the provider granted it.
	 */
	record Run(String instance, long start, Instant lockAtLeastUntil, Instant lockGrantedAt) {
	}

	/**
	 * The lock the provider granted last on this thread: ShedLock runs the task there.
	 */
	static final ThreadLocal<Instant[]> grantedLock = new ThreadLocal<>();

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "PT10M")
	static class JobApplication {

		@Bean
		static BeanPostProcessor grantTimingLockProvider() {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					if (!(bean instanceof LockProvider provider)) {
						return bean;
					}
					return (LockProvider) (configuration) -> {
						Optional<SimpleLock> lock = provider.lock(configuration);
						if (lock.isPresent()) {
							grantedLock.set(new Instant[] { configuration.getLockAtLeastUntil(), Instant.now() });
						}
						return lock;
					};
				}

			};
		}

		@Bean
		ReportJob reportJob(org.springframework.core.env.Environment environment) {
			return new ReportJob(environment.getProperty("instance"));
		}

	}

	static class ReportJob {

		private final String instance;

		ReportJob(String instance) {
			this.instance = instance;
		}

		// every 300 ms against 400 ms holds: the ticks do not all land on a hold's end
		@Scheduled(fixedRate = 300)
		@SchedulerLock(name = "shedlock-report", lockAtLeastFor = "PT0.4S")
		public void report() throws InterruptedException {
			if (running.incrementAndGet() != 1) {
				overlaps.incrementAndGet();
			}
			Instant[] lock = grantedLock.get();
			runs.add(new Run(this.instance, System.nanoTime(), lock[0], lock[1]));
			Thread.sleep(50); // a fast job: lockAtLeastFor keeps the other instance out
			running.decrementAndGet();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnProvider {

		static final LockProvider PROVIDER = (configuration) -> Optional.empty();

		@Bean
		LockProvider ownLockProvider() {
			return PROVIDER;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NightlyJob {

		@SchedulerLock(name = "nightly", lockAtMostFor = "2h")
		public void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableSchedulerLock(defaultLockAtMostFor = "${jobs.at-most}")
	static class LongDefault {

	}

}
