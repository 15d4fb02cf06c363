package io.github.redlock.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import io.github.redlock.autoconfigure.metrics.RedlockMetricsAutoConfiguration;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.metrics.RedlockClusterMeterBinder;
import io.github.redlock.metrics.RedlockRegistryMeterBinder;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.env.PropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code redlock.clusters} in each form an application may give it (a YAML list per
 * cluster, a YAML list of comma-separated strings, a properties file, a system property,
 * an environment variable), and what start-up says about a wrong one. No server is
 * needed: the seeds below refuse connections at once, and nothing here locks.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockClustersPropertyTests {

	private static final List<List<String>> THREE_CLUSTERS = List.of(
			List.of("redis://127.0.0.1:1", "redis://127.0.0.1:2"), List.of("redis://127.0.0.1:3"),
			List.of("redis://127.0.0.1:4", "redis://127.0.0.1:5"));

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
		.withPropertyValues("redlock.connect-timeout=200ms");

	@Test
	void yamlListPerClusterBindsOneMemberPerCluster() {
		String yaml = """
				redlock:
				  clusters:
				    - - redis://127.0.0.1:1
				      - redis://127.0.0.1:2
				    - - redis://127.0.0.1:3
				    - [ redis://127.0.0.1:4, redis://127.0.0.1:5 ]
				""";
		this.contextRunner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(load(new YamlPropertySourceLoader(), yaml)))
			.run(this::threeClusters);
	}

	@Test
	void yamlListOfCommaSeparatedSeedsBindsOneMemberPerItem() {
		String yaml = """
				redlock:
				  clusters:
				    - redis://127.0.0.1:1, redis://127.0.0.1:2
				    - redis://127.0.0.1:3
				    - redis://127.0.0.1:4,redis://127.0.0.1:5
				""";
		this.contextRunner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(load(new YamlPropertySourceLoader(), yaml)))
			.run(this::threeClusters);
	}

	@Test
	void propertiesFileBindsOneMemberPerIndex() {
		String properties = """
				redlock.clusters[0]=redis://127.0.0.1:1,redis://127.0.0.1:2
				redlock.clusters[1]=redis://127.0.0.1:3
				redlock.clusters[2]=redis://127.0.0.1:4, redis://127.0.0.1:5
				""";
		this.contextRunner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(load(new PropertiesPropertySourceLoader(), properties)))
			.run(this::threeClusters);
	}

	@Test
	void systemPropertiesBindOneMemberPerIndex() {
		this.contextRunner
			.withSystemProperties("redlock.clusters[0]=redis://127.0.0.1:1,redis://127.0.0.1:2",
					"redlock.clusters[1]=redis://127.0.0.1:3",
					"redlock.clusters[2]=redis://127.0.0.1:4,redis://127.0.0.1:5")
			.run(this::threeClusters);
	}

	@Test
	void environmentVariablesBindOneMemberPerIndex() {
		Map<String, Object> variables = Map.of("REDLOCK_CLUSTERS_0", "redis://127.0.0.1:1,redis://127.0.0.1:2",
				"REDLOCK_CLUSTERS_1", "redis://127.0.0.1:3", "REDLOCK_CLUSTERS_2",
				"redis://127.0.0.1:4,redis://127.0.0.1:5");
		this.contextRunner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(new SystemEnvironmentPropertySource(
						StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables)))
			.run(this::threeClusters);
	}

	private void threeClusters(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		RedlockConnectionDetails details = context.getBean(RedlockConnectionDetails.class);
		assertThat(details.getClusters()).isEqualTo(THREE_CLUSTERS);
		assertThat(details.getNodes()).isEmpty();
		RedlockRegistry registry = context.getBean(RedlockRegistry.class);
		assertThat(registry.nodeCount()).as("one member per cluster").isEqualTo(3);
		assertThat(registry.quorum()).isEqualTo(2);
	}

	@Test
	void nodesAndClustersTogetherFailNamingBothAndTheFix() {
		this.contextRunner.withPropertyValues(RedlockAutoConfigurationTests.NODES)
			.withPropertyValues("redlock.clusters[0]=redis://127.0.0.1:4")
			.run((context) -> assertThat(analysis(context.getStartupFailure())).satisfies((analysis) -> {
				assertThat(analysis.getDescription()).isEqualTo("Both redlock.nodes and redlock.clusters are set");
				assertThat(analysis.getAction()).contains("Set one of them", "redlock.nodes lists independent single",
						"redlock.clusters lists Redis or Valkey Clusters");
			}));
	}

	@Test
	void oneStringWithoutAnIndexFailsSinceItCouldBeOneClusterOrSeveral() {
		// bound as it is, it would make each URI a cluster of its own: if they were the
		// seeds of one cluster, that cluster would count as several members
		this.contextRunner.withPropertyValues("redlock.clusters=redis://:s3cret@127.0.0.1:1,redis://127.0.0.1:2")
			.run((context) -> assertThat(analysis(context.getStartupFailure())).satisfies((analysis) -> {
				assertThat(analysis.getDescription())
					.startsWith("redlock.clusters is set to one comma-separated string of 2 URIs, with no index")
					.doesNotContain("s3cret");
				assertThat(analysis.getAction())
					.contains("redlock.clusters[0]=redis://10.0.1.1:6379,redis://10.0.1.2:6379", "REDLOCK_CLUSTERS_0");
			}));
		this.contextRunner.withPropertyValues("redlock.clusters=redis://127.0.0.1:1")
			.run((context) -> assertThat(context).hasNotFailed()
				.getBean(RedlockConnectionDetails.class)
				.extracting(RedlockConnectionDetails::getClusters)
				.isEqualTo(List.of(List.of("redis://127.0.0.1:1"))));
	}

	@Test
	void clusterWithoutSeedsFailsNamingIt() {
		this.contextRunner
			.withPropertyValues("redlock.clusters[0]=redis://127.0.0.1:1", "redlock.clusters[1]=",
					"redlock.clusters[2]=redis://127.0.0.1:3")
			.run((context) -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("redlock.clusters[1] has no seed URIs"));
	}

	@Test
	void malformedSeedFailsWithoutItsPassword() {
		this.contextRunner
			.withPropertyValues("redlock.clusters[0]=redis://127.0.0.1:1",
					"redlock.clusters[1]=redis://127.0.0.1:2,redis://:s3cret@host:notaport",
					"redlock.clusters[2]=redis://127.0.0.1:3")
			.run((context) -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("seed 1 of a redlock.clusters entry")
				.contains("is not a valid URI")
				.doesNotContain("s3cret", "redlock.nodes"));
	}

	@Test
	void serverInTwoClustersFails() {
		this.contextRunner
			.withPropertyValues("redlock.clusters[0]=redis://127.0.0.1:1", "redlock.clusters[1]=redis://127.0.0.1:2",
					"redlock.clusters[2]=redis://127.0.0.1:3,redis://127.0.0.1:1")
			.run((context) -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("redlock.clusters[2] lists redis://127.0.0.1:1, which an earlier cluster lists"));
	}

	@Test
	void evenClusterCountStartsButWarns(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("redlock.clusters[0]=redis://127.0.0.1:1", "redlock.clusters[1]=redis://127.0.0.1:2")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("redlock.clusters lists 2 clusters: a quorum of 2 tolerates 0 failed cluster(s)");
	}

	@Test
	void gaugesOfTheMastersComeWithClustersOnly() {
		ApplicationContextRunner withMetrics = this.contextRunner.withConfiguration(
				AutoConfigurations.of(MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
						SimpleMetricsExportAutoConfiguration.class, RedlockMetricsAutoConfiguration.class));
		withMetrics
			.withPropertyValues("redlock.clusters[0]=redis://127.0.0.1:1", "redlock.clusters[1][0]=redis://127.0.0.1:2",
					"redlock.clusters[2]=redis://127.0.0.1:3")
			.run((context) -> {
				assertThat(context).hasSingleBean(RedlockClusterMeterBinder.class);
				assertThat(context.getBean(MeterRegistry.class).find("redlock.cluster.usable").gauges()).hasSize(3);
			});
		// they ask the masters: not for single nodes, whose gauges ask no node
		withMetrics.withPropertyValues(RedlockAutoConfigurationTests.NODES)
			.run((context) -> assertThat(context).hasSingleBean(RedlockRegistryMeterBinder.class)
				.doesNotHaveBean(RedlockClusterMeterBinder.class));
	}

	@Test
	void connectionDetailsBeanMayGiveClusters() {
		this.contextRunner.withUserConfiguration(ClusterDetails.class)
			.run((context) -> assertThat(context.getBean(RedlockRegistry.class).nodeCount()).isEqualTo(3));
	}

	@Test
	void connectionDetailsBeanWithNodesAndClustersFails() {
		this.contextRunner.withUserConfiguration(ClusterDetails.class)
			.withPropertyValues("details.nodes=true")
			.run((context) -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("supplies both nodes and clusters"));
	}

	private static PropertySource<?> load(PropertySourceLoader loader, String text) {
		try {
			return loader
				.load("test." + loader.getFileExtensions()[0],
						new ByteArrayResource(text.getBytes(StandardCharsets.UTF_8)))
				.get(0);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static FailureAnalysis analysis(Throwable failure) {
		assertThat(failure).as("start-up failure").isNotNull();
		FailureAnalysis analysis = new RedlockConfigurationFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("failure analysis of %s", failure).isNotNull();
		return analysis;
	}

	@Configuration(proxyBeanMethods = false)
	static class ClusterDetails {

		@Bean
		RedlockConnectionDetails clusterConnectionDetails(Environment environment) {
			boolean nodes = environment.getProperty("details.nodes", Boolean.class, false);
			return new RedlockConnectionDetails() {

				@Override
				public List<String> getNodes() {
					return nodes ? List.of("redis://127.0.0.1:9") : List.of();
				}

				@Override
				public List<List<String>> getClusters() {
					return THREE_CLUSTERS;
				}

			};
		}

	}

}
