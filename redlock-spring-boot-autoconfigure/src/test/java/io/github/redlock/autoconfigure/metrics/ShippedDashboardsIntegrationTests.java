package io.github.redlock.autoconfigure.metrics;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.observation.RedlockObservationAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.metrics.RedlockClusterMeterBinder;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard ({@code docs/grafana/redlock-dashboard.json}) and the Prometheus
 * alert rules ({@code docs/prometheus/redlock-alerts.yml}) query only series that the
 * starter exports: every {@code redlock_*} name in them is in a real Prometheus scrape of
 * an application on three real nodes, with the observations, the legacy timers and the
 * cluster gauges, after one lock was acquired and released.
 */
class ShippedDashboardsIntegrationTests {

	static final Path DASHBOARD = Path.of("..", "docs", "grafana", "redlock-dashboard.json");

	static final Path ALERTS = Path.of("..", "docs", "prometheus", "redlock-alerts.yml");

	private static final Pattern SERIES = Pattern.compile("\\bredlock_[a-z_]+");

	private static final Pattern LABEL = Pattern.compile("[{,]([a-z_]+)=\"");

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, PrometheusMetricsExportAutoConfiguration.class,
				ObservationAutoConfiguration.class, RedlockAutoConfiguration.class,
				RedlockMetricsAutoConfiguration.class, RedlockObservationAutoConfiguration.class))
		.withPropertyValues(FleetProperties.of(fleet, "redlock.metrics.legacy-timers=true"));

	@Test
	void everySeriesTheDashboardAndTheAlertsQueryIsExported() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			try (Lease lease = context.getBean(LockRegistry.class)
				.acquire("dashboards", Duration.ofSeconds(10), Duration.ofSeconds(10))) {
				lease.fencingToken();
			}
			PrometheusMeterRegistry prometheus = context.getBean(PrometheusMeterRegistry.class);
			new RedlockClusterMeterBinder(context.getBean(RedlockRegistry.class)).bindTo(prometheus);
			String scrape = prometheus.scrape();
			Set<String> exported = exported(scrape);
			Set<String> labels = labels(scrape);
			assertThat(exported).as("the scrape").contains("redlock_leases_active", "redlock_node_state");
			List<String> problems = new ArrayList<>();
			for (Path file : List.of(DASHBOARD, ALERTS)) {
				Set<String> queried = queried(Files.readString(file));
				assertThat(queried).as("series queried by " + file).isNotEmpty();
				for (String series : queried) {
					if (!exported.contains(series) && !labels.contains(series)) {
						problems.add(file + " queries " + series + ", which the starter exports neither as a series"
								+ " nor as a label; it exports " + exported + " with the labels " + labels);
					}
				}
			}
			assertThat(problems).as("series of the shipped dashboard and alerts").isEmpty();
		});
	}

	/** The names of the series of a Prometheus scrape whose name begins with redlock_. */
	static Set<String> exported(String scrape) {
		Set<String> names = new TreeSet<>();
		for (String line : scrape.split("\n")) {
			if (line.startsWith("redlock_")) {
				int end = line.indexOf('{');
				names.add(line.substring(0, (end >= 0) ? end : line.indexOf(' ')));
			}
		}
		return names;
	}

	/** The names of the labels of the redlock_ series of a Prometheus scrape. */
	static Set<String> labels(String scrape) {
		Set<String> names = new TreeSet<>();
		for (String line : scrape.split("\n")) {
			int start = line.indexOf('{');
			if (line.startsWith("redlock_") && start >= 0) {
				Matcher label = LABEL.matcher(line.substring(start));
				while (label.find()) {
					names.add(label.group(1));
				}
			}
		}
		return names;
	}

	/** The redlock_ names (series or labels) a dashboard or a rule file uses. */
	static Set<String> queried(String text) {
		Set<String> names = new TreeSet<>();
		Matcher matcher = SERIES.matcher(text);
		while (matcher.find()) {
			names.add(matcher.group());
		}
		return names;
	}

}
