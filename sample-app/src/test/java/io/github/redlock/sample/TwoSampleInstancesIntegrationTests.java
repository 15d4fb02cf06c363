package io.github.redlock.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.embedded.RedisFleet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of the sample, started as {@code java -jar sample-app.jar} would start
 * them, on one fleet of three real redis-server nodes given as {@code --redlock.nodes},
 * with both jobs ticking every second: each scheduled job runs on one instance at a time
 * and once per period, exactly one instance leads, and stopping the leader hands the
 * leadership to the other. The last test stops an instance, so the order is fixed.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TwoSampleInstancesIntegrationTests {

	private static final Duration PERIOD = Duration.ofSeconds(1);

	private static final Duration PATIENCE = Duration.ofSeconds(30);

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private static RedisFleet fleet;

	private static Instance a;

	private static Instance b;

	/** When both instances were up: runs from then on count. */
	private static Instant bothUp;

	@BeforeAll
	static void start() {
		fleet = RedisFleet.start(3);
		a = new Instance("a");
		b = new Instance("b");
		bothUp = Instant.now();
	}

	@AfterAll
	static void stop() {
		for (Instance instance : new Instance[] { a, b }) {
			if (instance != null) {
				instance.context.close();
			}
		}
		if (fleet != null) {
			fleet.close();
		}
	}

	@Test
	@Order(1)
	void theDigestJobRunsOnOneInstanceAtATimeAndOncePerPeriod() {
		List<JobRuns.Run> runs = awaitRuns(DigestJob.NAME);
		assertOneAtATimeOncePerPeriod(DigestJob.NAME, runs);
		assertThat(runs).extracting(JobRuns.Run::fencingToken)
			.as("fencing tokens of the digest's runs, in the order they started")
			.isSorted()
			.doesNotHaveDuplicates();
		assertTheEndpointsCount(DigestJob.NAME);
	}

	@Test
	@Order(2)
	void theShedLockJobRunsOnOneInstanceAtATimeAndOncePerPeriod() {
		List<JobRuns.Run> runs = awaitRuns(CleanupJob.NAME);
		assertOneAtATimeOncePerPeriod(CleanupJob.NAME, runs);
		assertTheEndpointsCount(CleanupJob.NAME);
	}

	@Test
	@Order(3)
	void exactlyOneInstanceLeadsAndStoppingItHandsLeadershipToTheOther() throws InterruptedException {
		await().atMost(PATIENCE).until(() -> a.leadership().isLeader() || b.leadership().isLeader());
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger samples = new AtomicInteger();
		Thread monitor = new Thread(() -> {
			while (!Thread.currentThread().isInterrupted()) {
				// one side read twice around the other: both lead at one moment for sure
				if (a.leadsWhile(b) || b.leadsWhile(a)) {
					overlaps.incrementAndGet();
				}
				samples.incrementAndGet();
				try {
					Thread.sleep(2);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}, "leader-overlap-monitor");
		monitor.start();
		try {
			Instance leader = a.leadership().isLeader() ? a : b;
			Instance follower = (leader == a) ? b : a;
			String leaderView = leader.get("/demo/leader");
			String followerView = follower.get("/demo/leader");
			assertThat(leaderView).contains("\"instance\":\"" + leader.name + "\"", "\"role\":\"sample-leader\"",
					"\"leader\":true", "\"since\":\"");
			assertThat(followerView).contains("\"instance\":\"" + follower.name + "\"", "\"leader\":false",
					"\"fencingToken\":null");
			long token = longField(leaderView, "fencingToken");
			// both see the same holder on the quorum: the leader's initiator thread
			String holder = stringField(leaderView, "heldBy");
			assertThat(holder).contains(":lock-leadership-");
			assertThat(stringField(followerView, "heldBy")).isEqualTo(holder);

			long closing = System.nanoTime();
			leader.context.close();
			await().atMost(PATIENCE).until(() -> follower.leadership().isLeader());
			System.out.printf("Leadership passed to instance %s %d ms after instance %s began to shut down%n",
					follower.name, Duration.ofNanos(System.nanoTime() - closing).toMillis(), leader.name);
			String newLeaderView = follower.get("/demo/leader");
			assertThat(newLeaderView).contains("\"leader\":true");
			assertThat(longField(newLeaderView, "fencingToken")).as("the new leader's fencing token")
				.isGreaterThan(token);
			// and the scheduled jobs, wherever they ran, now run on the instance left
			int digests = follower.runs().count(DigestJob.NAME);
			int cleanups = follower.runs().count(CleanupJob.NAME);
			await().atMost(PATIENCE)
				.until(() -> follower.runs().count(DigestJob.NAME) >= digests + 2
						&& follower.runs().count(CleanupJob.NAME) >= cleanups + 2);
		}
		finally {
			monitor.interrupt();
			monitor.join(10_000);
		}
		System.out.printf("Leader overlap monitor: %d samples, %d with both instances leading%n", samples.get(),
				overlaps.get());
		assertThat(samples.get()).isPositive();
		assertThat(overlaps).as("moments when both instances led").hasValue(0);
	}

	private static List<JobRuns.Run> awaitRuns(String job) {
		await().atMost(PATIENCE).until(() -> runs(job).size() >= 6);
		return runs(job);
	}

	/**
	 * The finished runs of a job on both instances since both were up, in the order they
	 * started.
	 */
	private static List<JobRuns.Run> runs(String job) {
		List<JobRuns.Run> runs = new ArrayList<>(a.runs().runs(job));
		runs.addAll(b.runs().runs(job));
		runs.removeIf((run) -> run.started().isBefore(bothUp));
		runs.sort(Comparator.comparing(JobRuns.Run::started));
		return runs;
	}

	private static void assertOneAtATimeOncePerPeriod(String job, List<JobRuns.Run> runs) {
		List<Long> gaps = new ArrayList<>();
		StringBuilder who = new StringBuilder();
		for (int i = 0; i < runs.size(); i++) {
			who.append(runs.get(i).instance());
			if (i > 0) {
				gaps.add(Duration.between(runs.get(i - 1).started(), runs.get(i).started()).toMillis());
			}
		}
		System.out.printf("%s: %d runs by instance %s; ms between starts %s%n", job, runs.size(), who, gaps);
		for (int i = 1; i < runs.size(); i++) {
			JobRuns.Run previous = runs.get(i - 1);
			JobRuns.Run next = runs.get(i);
			assertThat(next.started()).as("%s: %s started before %s ended", job, next, previous)
				.isAfterOrEqualTo(previous.ended());
		}
		// The lock is held at least 800ms from each acquisition, so n runs span at least
		// (n - 1) x 800ms, less the first run's acquisition time (starts are recorded
		// once the lock is held). A run per instance per 1s period, what either instance
		// would do without the lock's minimum hold, puts two starts at most 500ms apart
		// in every period: (n - 1) x 500ms on average. Load only lengthens the span.
		long span = Duration.between(runs.get(0).started(), runs.get(runs.size() - 1).started()).toMillis();
		assertThat(span / (runs.size() - 1))
			.as("%s: mean ms between successive starts, on either instance %s", job, gaps)
			.isGreaterThan(600);
	}

	private static void assertTheEndpointsCount(String job) {
		int counted = 0;
		for (Instance instance : new Instance[] { a, b }) {
			String jobs = instance.get("/demo/jobs");
			assertThat(jobs).contains("\"instance\":\"" + instance.name + "\"", "\"" + job + "\":{");
			Matcher runs = Pattern.compile("\"" + job + "\":\\{[^}]*\"runsHere\":(\\d+)").matcher(jobs);
			assertThat(runs.find()).as("runsHere of %s in %s", job, jobs).isTrue();
			counted += Integer.parseInt(runs.group(1));
		}
		assertThat(counted).as("runs of %s that both instances' /demo/jobs count", job).isGreaterThanOrEqualTo(6);
	}

	private static long longField(String json, String name) {
		Matcher matcher = Pattern.compile("\"" + name + "\":(\\d+)").matcher(json);
		assertThat(matcher.find()).as("%s in %s", name, json).isTrue();
		return Long.parseLong(matcher.group(1));
	}

	private static String stringField(String json, String name) {
		Matcher matcher = Pattern.compile("\"" + name + "\":\"([^\"]*)\"").matcher(json);
		assertThat(matcher.find()).as("%s in %s", name, json).isTrue();
		return matcher.group(1);
	}

	/**
	 * One instance of the sample, on a random port, named {@code name}.
	 */
	private static final class Instance {

		private final String name;

		private final ConfigurableApplicationContext context;

		private final int port;

		private final JobRuns runs;

		private final Leadership leadership;

		Instance(String name) {
			this.name = name;
			this.context = new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0",
					"--sample.instance=" + name, "--redlock.nodes=" + String.join(",", fleet.uris()),
					// the nodes are new: the restart guard would keep them out for
					// max-ttl
					"--redlock.restart-guard=false", "--sample.jobs.digest.period=" + PERIOD,
					"--sample.jobs.digest.hold-at-least=800ms", "--sample.jobs.cleanup.period=" + PERIOD,
					"--sample.jobs.cleanup.lock-at-least-for=800ms");
			this.port = Integer.parseInt(this.context.getEnvironment().getProperty("local.server.port"));
			// kept, so that they can still be asked once the context is closed
			this.runs = this.context.getBean(JobRuns.class);
			this.leadership = this.context.getBean(Leadership.class);
		}

		JobRuns runs() {
			return this.runs;
		}

		Leadership leadership() {
			return this.leadership;
		}

		boolean leadsWhile(Instance other) {
			Leadership mine = leadership();
			Leadership theirs = other.leadership();
			return mine.isLeader() && theirs.isLeader() && mine.isLeader();
		}

		String get(String path) {
			try {
				HttpResponse<String> response = http
					.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
						.timeout(Duration.ofSeconds(30))
						.GET()
						.build(), HttpResponse.BodyHandlers.ofString());
				assertThat(response.statusCode()).as("GET %s on %s: %s", path, this.name, response.body())
					.isEqualTo(200);
				return response.body();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
