package io.github.redlock.docs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.metrics.RedlockClusterMeterBinder;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The names of the meters the starter registers, as an application with Actuator has
 * them: every auto-configuration of the class path, three real nodes, one lock acquired
 * and released (the acquisition and hold meters exist from their first observation), and
 * the legacy timers turned on beside the observations. The cluster members' gauges are
 * auto-configured only with {@code redlock.clusters}: their binder is bound here by hand
 * to the same registry, which registers the same names.
 */
final class StarterMeters {

	private static Set<String> names;

	private StarterMeters() {
	}

	/** The names of the meters whose name begins with {@code redlock.}. */
	static synchronized Set<String> names() throws Exception {
		if (names == null) {
			names = register();
		}
		return names;
	}

	private static Set<String> register() throws Exception {
		try (RedisFleet fleet = RedisFleet.start(3)) {
			List<String> properties = new ArrayList<>();
			for (int i = 0; i < fleet.uris().size(); i++) {
				properties.add("redlock.nodes[" + i + "]=" + fleet.uris().get(i));
			}
			properties.add("redlock.restart-guard=false");
			properties.add("redlock.metrics.legacy-timers=true");
			SpringApplication application = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
				.properties(properties.toArray(String[]::new))
				.build();
			try (ConfigurableApplicationContext context = application.run()) {
				try (Lease lease = context.getBean(LockRegistry.class)
					.acquire("docs:meters", Duration.ofSeconds(10), Duration.ofSeconds(10))) {
					lease.fencingToken();
				}
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				new RedlockClusterMeterBinder(context.getBean(RedlockRegistry.class)).bindTo(meters);
				Set<String> redlock = new TreeSet<>();
				for (Meter meter : meters.getMeters()) {
					String name = meter.getId().getName();
					if (name.startsWith("redlock.")) {
						redlock.add(name);
					}
				}
				return redlock;
			}
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
