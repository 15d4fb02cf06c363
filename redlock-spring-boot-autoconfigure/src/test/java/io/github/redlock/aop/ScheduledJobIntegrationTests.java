package io.github.redlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Scheduled} jobs under {@code @DistributedLock} alone (issue 14, item 3), on two
 * application instances over one fleet.
 */
class ScheduledJobIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	static final List<String> runs = new CopyOnWriteArrayList<>();

	static final AtomicInteger running = new AtomicInteger();

	static final AtomicInteger overlaps = new AtomicInteger();

	private final ListAppender<ILoggingEvent> log = new ListAppender<>();

	private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

	private final Logger aop = (Logger) LoggerFactory.getLogger("io.github.redlock.aop");

	private Level aopLevel;

	@BeforeEach
	void capture() {
		runs.clear();
		overlaps.set(0);
		this.log.start();
		this.root.addAppender(this.log);
		this.aopLevel = this.aop.getLevel();
		this.aop.setLevel(Level.DEBUG);
	}

	@AfterEach
	void release() {
		this.root.detachAppender(this.log);
		this.aop.setLevel(this.aopLevel);
	}

	private ApplicationContextRunner contextRunner(Class<?> job) {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
			.withUserConfiguration(job)
			.withPropertyValues(FleetProperties.of(fleet));
	}

	@Test
	void aJobThatTheOtherInstanceRunsIsSkippedQuietly() {
		// failed before skipIfLocked existed (the job had waitTime = "0s" alone): every
		// tick that found the lock busy logged an ERROR with the
		// LockAcquisitionException's stack trace, on every instance (17 in one run)
		contextRunner(BusyJob.class).run((first) -> contextRunner(BusyJob.class).run((second) -> {
			await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() >= 4);
			// checked before the contexts close: closing a registry releases the lock of
			// a run still going, and a tick after that fails
			assertThat(overlaps.get()).isZero();
			assertThat(lines(Level.ERROR)).isEmpty();
			assertThat(lines(Level.WARN)).isEmpty();
		}));
		assertThat(lines(Level.DEBUG)).filteredOn((line) -> line.contains("Skipped"))
			.isNotEmpty()
			.allMatch((line) -> line.contains("BusyJobBean.report()") && line.contains("'busy-job'"));
	}

	@Test
	void theMinimumHoldStopsAnOffsetInstanceFromRunningTheJobAgainInItsPeriod() {
		// both instances tick every 1000ms, the second 500ms after the first; the job
		// takes 20ms. Held at least 800ms, it runs once a period; without, twice
		contextRunner(OffsetJobs.class).withPropertyValues("job.offset=0")
			.run((first) -> contextRunner(OffsetJobs.class).withPropertyValues("job.offset=500").run((second) -> {
				await().atMost(Duration.ofSeconds(20))
					.until(() -> starts("held").size() >= 4 && starts("unheld").size() >= 4);
				assertThat(lines(Level.ERROR)).isEmpty();
			}));
		List<Long> held = gaps(starts("held"));
		List<Long> unheld = gaps(starts("unheld"));
		System.out.printf("Scheduled job gaps (ms): held at least 800ms %s, not held %s%n", held, unheld);
		assertThat(held).as("ms between runs of the job held at least 800ms").allMatch((gap) -> gap >= 700);
		// the same schedules without the hold: the offset instance runs it again
		assertThat(unheld).as("ms between runs of the job without a minimum hold").anyMatch((gap) -> gap < 700);
	}

	@Test
	void aSkippedOptionalMethodReturnsEmpty() throws Exception {
		contextRunner(OptionalJob.class).run((context) -> {
			OptionalJobBean job = context.getBean(OptionalJobBean.class);
			assertThat(job.report()).contains("done");
			try (Lease lease = context.getBean(LockRegistry.class)
				.acquire("optional-job", Duration.ofSeconds(10), Duration.ZERO)) {
				// from another thread: on this one the call would re-enter the held lock
				CompletableFuture<Optional<String>> skipped = CompletableFuture.supplyAsync(job::report);
				assertThat(skipped.get(10, TimeUnit.SECONDS)).isEmpty();
			}
		});
		assertThat(lines(Level.DEBUG))
			.anyMatch((line) -> line.contains("Skipped OptionalJobBean.report()") && line.contains("'optional-job'"));
	}

	@Test
	void aNestedCallsMinimumHoldChangesNothing() {
		contextRunner(OptionalJob.class).run((context) -> {
			context.getBean(OptionalJobBean.class).outer();
			// the outer call, without a hold, released the lock at once
			context.getBean(LockRegistry.class)
				.tryAcquire("optional-job", Duration.ofSeconds(5))
				.orElseThrow()
				.release();
		});
	}

	@Test
	void theMinimumHoldOutlastsTheTransaction() {
		contextRunner(OptionalJob.class).run((context) -> {
			OptionalJobBean job = context.getBean(OptionalJobBean.class);
			new TransactionTemplate(new DataSourceTransactionManager(
					new SimpleDriverDataSource(new org.h2.Driver(), "jdbc:h2:mem:hold;DB_CLOSE_DELAY=-1")))
				.executeWithoutResult((status) -> job.held());
			LockRegistry locks = context.getBean(LockRegistry.class);
			// released after the commit, but left on the nodes for the rest of 1s
			assertThat(CompletableFuture.supplyAsync(() -> locks.tryAcquire("held-job", Duration.ofSeconds(5)))
				.get(10, TimeUnit.SECONDS)).isEmpty();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> locks.tryAcquire("held-job", Duration.ofSeconds(5)).orElse(null), (lease) -> lease != null)
				.release();
		});
	}

	@Test
	void skipIfLockedOnAMethodThatCannotSaySkippedIsRefusedAtStartUp() {
		contextRunner(IntJob.class).run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("IntJobBean.count()")
			.hasMessageContaining("skipIfLocked")
			.hasMessageContaining("Return void, Optional"));
	}

	@Test
	void aNegativeMinimumHoldIsRefusedAtStartUp() {
		contextRunner(NegativeHoldJob.class).run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("NegativeHoldJobBean.report()")
			.hasMessageContaining("holdAtLeast \"-1s\" is negative"));
	}

	@Test
	void aMinimumHoldOnAMonoIsRefusedAtStartUp() {
		contextRunner(MonoHoldJob.class).run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("MonoHoldJobBean.report()")
			.hasMessageContaining("holdAtLeast is not supported on a method that returns Mono"));
	}

	private static List<Long> starts(String job) {
		return runs.stream()
			.filter((run) -> run.startsWith(job + "@"))
			.map((run) -> Long.parseLong(run.substring(job.length() + 1)))
			.toList();
	}

	private static List<Long> gaps(List<Long> starts) {
		List<Long> gaps = new java.util.ArrayList<>();
		for (int i = 1; i < starts.size(); i++) {
			gaps.add(TimeUnit.NANOSECONDS.toMillis(starts.get(i) - starts.get(i - 1)));
		}
		return gaps;
	}

	private List<String> lines(Level level) {
		// the jobs' threads still log while the test reads: copy under the appender's
		// lock, which logback's AppenderBase takes for every event it appends
		List<ILoggingEvent> events;
		synchronized (this.log) {
			events = new java.util.ArrayList<>(this.log.list);
		}
		return events.stream()
			.filter((event) -> event.getLevel() == level)
			.map((event) -> event.getLoggerName() + " " + event.getFormattedMessage())
			.toList();
	}

	static void run(String job) throws InterruptedException {
		if (running.incrementAndGet() != 1) {
			overlaps.incrementAndGet();
		}
		runs.add(job);
		Thread.sleep(300); // longer than the period: the other instance's ticks find it
							// busy
		running.decrementAndGet();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class BusyJob {

		@Bean
		BusyJobBean busyJobBean() {
			return new BusyJobBean();
		}

	}

	static class BusyJobBean {

		@Scheduled(fixedRate = 100)
		@DistributedLock(key = "'busy-job'", skipIfLocked = true)
		public void report() throws InterruptedException {
			run("busy");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class OffsetJobs {

		@Bean
		OffsetJobBeans offsetJobBeans() {
			return new OffsetJobBeans();
		}

	}

	static class OffsetJobBeans {

		@Scheduled(fixedRate = 1000, initialDelayString = "${job.offset}")
		@DistributedLock(key = "'held-offset-job'", ttl = "2s", skipIfLocked = true, holdAtLeast = "800ms")
		public void held() throws InterruptedException {
			runs.add("held@" + System.nanoTime());
			Thread.sleep(20);
		}

		@Scheduled(fixedRate = 1000, initialDelayString = "${job.offset}")
		@DistributedLock(key = "'unheld-offset-job'", ttl = "2s", skipIfLocked = true)
		public void unheld() throws InterruptedException {
			runs.add("unheld@" + System.nanoTime());
			Thread.sleep(20);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OptionalJob {

		@Bean
		OptionalJobBean optionalJobBean() {
			return new OptionalJobBean();
		}

	}

	static class OptionalJobBean {

		private OptionalJobBean self;

		@org.springframework.beans.factory.annotation.Autowired
		void setSelf(@org.springframework.context.annotation.Lazy OptionalJobBean self) {
			this.self = self;
		}

		@DistributedLock(key = "'optional-job'", skipIfLocked = true)
		public Optional<String> report() {
			return Optional.of("done");
		}

		@DistributedLock(key = "'optional-job'")
		public void outer() {
			this.self.nested();
		}

		@DistributedLock(key = "'optional-job'", holdAtLeast = "30s")
		public void nested() {
		}

		@DistributedLock(key = "'held-job'", holdAtLeast = "1s")
		public void held() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class IntJob {

		@Bean
		IntJobBean intJobBean() {
			return new IntJobBean();
		}

	}

	static class IntJobBean {

		@DistributedLock(key = "'int-job'", skipIfLocked = true)
		public int count() {
			return 1;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NegativeHoldJob {

		@Bean
		NegativeHoldJobBean negativeHoldJobBean() {
			return new NegativeHoldJobBean();
		}

	}

	static class NegativeHoldJobBean {

		@DistributedLock(key = "'negative-job'", holdAtLeast = "-1s")
		public void report() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MonoHoldJob {

		@Bean
		MonoHoldJobBean monoHoldJobBean() {
			return new MonoHoldJobBean();
		}

	}

	static class MonoHoldJobBean {

		@DistributedLock(key = "'mono-job'", holdAtLeast = "1s")
		public Mono<Void> report() {
			return Mono.empty();
		}

	}

}
