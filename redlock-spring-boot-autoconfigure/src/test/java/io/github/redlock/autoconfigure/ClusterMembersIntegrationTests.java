package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.aop.CurrentLease;
import io.github.redlock.autoconfigure.endpoint.RedlockEndpointAutoConfiguration;
import io.github.redlock.autoconfigure.health.RedlockHealthContributorAutoConfiguration;
import io.github.redlock.autoconfigure.metrics.RedlockMetricsAutoConfiguration;
import io.github.redlock.embedded.RedisCluster;
import io.github.redlock.embedded.RedisClusterExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.embedded.SlotRange;
import io.github.redlock.endpoint.RedlockEndpoint.NodeDescriptor;
import io.github.redlock.endpoint.RedlockEndpoint;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.health.RedlockHealthIndicator;
import io.github.redlock.metrics.RedlockClusterMeterBinder;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.autoconfigure.context.properties.ConfigurationPropertiesReportEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.env.EnvironmentEndpointAutoConfiguration;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint;
import org.springframework.boot.actuate.env.EnvironmentEndpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * An application configured only with {@code redlock.clusters}: three Redis Clusters of
 * three masters each, one member of the quorum each (issue 36). A
 * {@code @DistributedLock} method excludes across them while its key's slot moves to
 * another master of one cluster; health, the endpoint and the metrics list every master;
 * a master killed takes its member out, and locking goes on with the other two. No
 * password of a seed URI shows anywhere.
 */
@ExtendWith(OutputCaptureExtension.class)
class ClusterMembersIntegrationTests {

	/** Lettuce's loggers that log each command at DEBUG, not its connections. */
	private static final List<String> PER_COMMAND_LOGGERS = List.of("io.lettuce.core.RedisChannelHandler",
			"io.lettuce.core.protocol.CommandHandler", "io.lettuce.core.protocol.CommandEncoder",
			"io.lettuce.core.protocol.DefaultEndpoint", "io.lettuce.core.protocol.RedisStateMachine");

	/** Long enough for a machine whose load is twenty times its cores. */
	private static final Duration AWAIT = Duration.ofMinutes(2);

	@RegisterExtension
	static final RedisClusterExtension clusters = RedisClusterExtension.clusters(3).masters(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class,
						EndpointAutoConfiguration.class, RedlockEndpointAutoConfiguration.class,
						MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
						SimpleMetricsExportAutoConfiguration.class, RedlockMetricsAutoConfiguration.class))
		.withUserConfiguration(NightlyJob.Config.class)
		.withPropertyValues("management.endpoints.web.exposure.include=redlock", "redlock.restart-guard=false",
				"redlock.node-timeout=1s");

	/**
	 * {@code redlock.clusters} in both forms: seeds comma-separated for the first two, a
	 * list (as YAML gives it) for the third.
	 */
	static String[] clusterProperties() {
		List<String> properties = new ArrayList<>();
		properties.add("redlock.clusters[0]=" + String.join(",", clusters.seedUris(0)));
		properties.add("redlock.clusters[1]=" + String.join(",", clusters.seedUris(1)));
		List<String> third = clusters.seedUris(2);
		for (int i = 0; i < third.size(); i++) {
			properties.add("redlock.clusters[2][" + i + "]=" + third.get(i));
		}
		return properties.toArray(String[]::new);
	}

	@Test
	void locksAcrossThreeClustersAndGoesOnWhileAMasterOfOneIsDown() {
		this.contextRunner.withPropertyValues(clusterProperties()).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedlockClusterMeterBinder.class);
			RedlockRegistry registry = context.getBean(RedlockRegistry.class);
			assertThat(registry.nodeCount()).isEqualTo(3);
			NightlyJob job = context.getBean(NightlyJob.class);
			RedlockHealthIndicator health = context.getBean(RedlockHealthIndicator.class);
			RedlockEndpoint endpoint = context.getBean(RedlockEndpoint.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);

			// each reading below asks the masters, within a node timeout that a loaded
			// machine may miss: awaited, so that a late answer is asked again
			await().atMost(AWAIT).untilAsserted(() -> {
				Health up = health.health();
				assertThat(up.getStatus()).as("%s", up.getDetails()).isEqualTo(Status.UP);
				assertThat(up.getDetails()).containsEntry("usable", "3 of 3")
					.containsEntry("tolerates", "1 more member failure(s)");
				for (Map<String, Object> member : members(up)) {
					assertThat(member).containsEntry("status", "UP");
					assertThat(masters(member)).hasSize(3)
						.allSatisfy((address, master) -> assertThat(master).containsEntry("status", "UP"));
				}
			});
			// the lock key's slot moves to another master of the first cluster while the
			// callers lock: that member gives no vote while it moves, the others do
			RedisCluster first = clusters.cluster(0);
			int slot = RedisCluster.slot("{nightly}");
			RedisNode target = first.masters()
				.stream()
				.filter((master) -> master != first.ownerOf(slot))
				.findFirst()
				.orElseThrow();
			Thread move = new Thread(() -> first.migrate(SlotRange.of(slot), target));
			move.start();
			runConcurrently(job, 2, 15);
			move.join();
			assertThat(first.ownerOf(slot)).isEqualTo(target);
			assertThat(job.overlaps()).isZero();
			assertThat(job.tokens()).hasSize(30).isSorted().doesNotHaveDuplicates();
			await().atMost(AWAIT)
				.untilAsserted(() -> assertThat(endpoint.nodes().nodes())
					.allSatisfy((member) -> assertThat(member.masters()).hasSize(3)
						.extracting(NodeDescriptor::state)
						.containsOnly("UP")));
			await().atMost(AWAIT).untilAsserted(() -> {
				for (int member = 0; member < 3; member++) {
					assertThat(gauge(meters, "redlock.cluster.masters.usable", member)).isEqualTo(3);
					assertThat(gauge(meters, "redlock.cluster.usable", member)).isEqualTo(1);
				}
			});

			// the master of the lock key's slot: that member's vote for it is gone
			RedisCluster second = clusters.cluster(1);
			RedisNode victim = second.masterFor("redlock:lock:{nightly}");
			String victimAddress = "redis://127.0.0.1:" + victim.port();
			victim.kill();
			await().atMost(AWAIT).untilAsserted(() -> {
				Health degraded = health.health();
				assertThat(degraded.getStatus()).as("2 of 3 members are a quorum").isEqualTo(Status.UP);
				assertThat(degraded.getDetails()).containsEntry("usable", "2 of 3")
					.containsEntry("tolerates", "0 more member failure(s)");
				Map<String, Object> out = members(degraded).get(1);
				assertThat(out).containsEntry("status", "DOWN").containsKey("problem");
				// out either as a master that does not answer, or, once its cluster
				// marked it failed, as slots without a master
				Map<String, Map<String, Object>> masters = masters(out);
				assertThat(masters.get(victimAddress)).as("%s in %s", victimAddress, masters)
					.satisfiesAnyOf((master) -> assertThat(master).isNull(),
							(master) -> assertThat(master).containsEntry("status", "DOWN").containsKey("problem"));
				assertThat(masters.values()).filteredOn((master) -> "UP".equals(master.get("status"))).hasSize(2);
				assertThat(members(degraded).get(0)).containsEntry("status", "UP");
				assertThat(members(degraded).get(2)).containsEntry("status", "UP");
			});
			await().atMost(AWAIT).untilAsserted(() -> {
				NodeDescriptor out = endpoint.nodes().nodes().get(1);
				assertThat(out.state()).isEqualTo("DOWN");
				assertThat(out.reason()).isNotBlank();
			});
			await().atMost(AWAIT).untilAsserted(() -> {
				assertThat(gauge(meters, "redlock.cluster.usable", 1)).isZero();
				assertThat(gauge(meters, "redlock.cluster.masters.usable", 1)).isEqualTo(2);
				assertThat(gauge(meters, "redlock.cluster.usable", 0)).isEqualTo(1);
				assertThat(meters.get("redlock.nodes.usable").gauge().value()).isEqualTo(2);
			});

			runConcurrently(job, 2, 10);
			assertThat(job.overlaps()).isZero();
			assertThat(job.tokens()).hasSize(50).isSorted().doesNotHaveDuplicates();
		});
	}

	@Test
	void noSeedPasswordAppearsAnywhere(CapturedOutput output) {
		for (RedisCluster cluster : clusters.clusters()) {
			for (RedisNode node : cluster.nodes()) {
				node.call("ACL", "SETUSER", "app", "reset", "on", ">pw-seed-1", ">pw-prop-3", "~*", "+@all");
			}
		}
		List<String> properties = new ArrayList<>();
		// a user and password in each seed, a lone password (the default user's), and
		// redlock.username/redlock.password for seeds without credentials
		properties.add("redlock.clusters[0]=" + clusters.seedUris(0)
			.stream()
			.map((uri) -> uri.replace("redis://", "redis://app:pw-seed-1@"))
			.collect(Collectors.joining(",")));
		List<String> second = clusters.seedUris(1);
		for (int i = 0; i < second.size(); i++) {
			properties.add("redlock.clusters[1][" + i + "]=" + second.get(i).replace("redis://", "redis://pw-lone-2@"));
		}
		properties.add("redlock.clusters[2]=" + String.join(",", clusters.seedUris(2)));
		List<String> shown = new ArrayList<>();
		LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());
		logging.setLogLevel("io.github.redlock", LogLevel.TRACE);
		logging.setLogLevel("io.lettuce", LogLevel.DEBUG);
		// but not a line per command: a master's restart check runs one script per slot
		PER_COMMAND_LOGGERS.forEach((logger) -> logging.setLogLevel(logger, LogLevel.INFO));
		try {
			this.contextRunner
				.withConfiguration(AutoConfigurations.of(EnvironmentEndpointAutoConfiguration.class,
						ConfigurationPropertiesReportEndpointAutoConfiguration.class))
				.withPropertyValues(properties.toArray(String[]::new))
				.withPropertyValues("redlock.username=app", "redlock.password=pw-prop-3",
						"management.endpoint.env.show-values=always",
						"management.endpoint.configprops.show-values=always",
						"management.endpoints.web.exposure.include=*")
				.run((context) -> {
					ObjectMapper json = new ObjectMapper();
					RedlockRegistry registry = context.getBean(RedlockRegistry.class);
					RedlockHealthIndicator health = context.getBean(RedlockHealthIndicator.class);
					await().atMost(AWAIT).untilAsserted(() -> {
						Health now = health.health();
						assertThat(now.getStatus()).as("%s", now.getDetails()).isEqualTo(Status.UP);
					});
					try (Lease lease = registry.acquire("secrets", Duration.ofSeconds(10), Duration.ofSeconds(30))) {
						shown.add(registry.inspect("secrets").toString());
						Throwable busy = CompletableFuture
							.supplyAsync(() -> catchThrowableOfType(LockAcquisitionException.class,
									() -> registry.acquire("secrets", Duration.ofSeconds(10), Duration.ofMillis(200))))
							.join();
						shown.add(busy.getMessage());
					}
					clusters.cluster(0).master(1).kill();
					await().atMost(AWAIT).until(() -> !registry.checkNodes().get(0).usable());
					shown.add(registry.checkNodes().toString());
					shown.add(registry.toString());
					shown.add(json.writeValueAsString(health.health()));
					shown.add(json.writeValueAsString(context.getBean(RedlockEndpoint.class).nodes()));
					shown.add(json.writeValueAsString(context.getBean(EnvironmentEndpoint.class).environment(null)));
					shown.add(json.writeValueAsString(
							context.getBean(ConfigurationPropertiesReportEndpoint.class).configurationProperties()));
				});
		}
		finally {
			logging.setLogLevel("io.github.redlock", null);
			logging.setLogLevel("io.lettuce", null);
			PER_COMMAND_LOGGERS.forEach((logger) -> logging.setLogLevel(logger, null));
		}
		shown.add(output.toString());
		String all = String.join("\n", shown);
		// the scan looked where it meant to
		assertThat(all).contains("redis://app:******@127.0.0.1:" + clusters.cluster(0).nodes().get(0).port(),
				"redis://******@127.0.0.1:" + clusters.cluster(1).nodes().get(0).port(), "\"redlock.clusters[0]\"",
				"Could not acquire lock 'secrets'", "redis://127.0.0.1:" + clusters.cluster(0).master(1).port());
		for (String password : List.of("pw-seed-1", "pw-lone-2", "pw-prop-3")) {
			assertThat(all).as("where %s shows", password).doesNotContain(password);
		}
	}

	private static void runConcurrently(NightlyJob job, int callers, int calls) throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(callers);
		try {
			List<Future<?>> work = new ArrayList<>();
			for (int i = 0; i < callers; i++) {
				work.add(threads.submit(() -> {
					for (int call = 0; call < calls; call++) {
						job.run();
					}
					return null;
				}));
			}
			for (Future<?> future : work) {
				future.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	@SuppressWarnings("unchecked")
	static List<Map<String, Object>> members(Health health) {
		return new ArrayList<>(((Map<String, Map<String, Object>>) health.getDetails().get("nodes")).values());
	}

	@SuppressWarnings("unchecked")
	static Map<String, Map<String, Object>> masters(Map<String, Object> member) {
		return (Map<String, Map<String, Object>>) member.getOrDefault("masters", Map.of());
	}

	private static double gauge(MeterRegistry meters, String name, int member) {
		return meters.get(name).tag("member", String.valueOf(member)).gauge().value();
	}

	/**
	 * A job that two callers run at once: it counts the times it found another caller
	 * inside, and records each holder's fencing token in the order they held the lock.
	 */
	static class NightlyJob {

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger overlaps = new AtomicInteger();

		private final List<Long> tokens = Collections.synchronizedList(new ArrayList<>());

		// read through methods: the bean is a class-based proxy, whose own fields are
		// unset
		public int overlaps() {
			return this.overlaps.get();
		}

		public List<Long> tokens() {
			return List.copyOf(this.tokens);
		}

		@DistributedLock(key = "'nightly'", ttl = "10s", waitTime = "60s")
		public void run() throws InterruptedException {
			if (this.inside.incrementAndGet() != 1) {
				this.overlaps.incrementAndGet();
			}
			this.tokens.add(CurrentLease.get().fencingToken());
			// hold the lock a little, so that the other caller waits for it
			Thread.sleep(5);
			this.inside.decrementAndGet();
		}

		@Configuration(proxyBeanMethods = false)
		static class Config {

			@Bean
			NightlyJob nightlyJob() {
				return new NightlyJob();
			}

		}

	}

}
