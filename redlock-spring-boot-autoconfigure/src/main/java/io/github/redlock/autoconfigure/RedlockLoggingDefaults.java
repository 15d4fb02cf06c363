package io.github.redlock.autoconfigure;

import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Quiets Lettuce's reconnect lines by default, so that a node going down is logged once:
 * Lettuce's {@code ConnectionWatchdog} says "Reconnecting, last destination was …" (INFO)
 * and "Cannot reconnect to […]" (WARN) at every attempt, about once a second per node
 * while one is down, where the registry says once that the node is down, with the quorum
 * left, and once that it is back ({@code FleetAvailability}). Its level is set to
 * {@code ERROR} as a default of the lowest precedence: any
 * {@code logging.level.io.lettuce.core.protocol.ConnectionWatchdog} of the application
 * wins, and {@code redlock.enabled=false} leaves it alone. The logger is Lettuce's, so
 * this applies to every Lettuce client of the application (Spring Data Redis's too),
 * whose drops its own health and metrics still report.
 *
 * @author redlock contributors
 */
public class RedlockLoggingDefaults implements EnvironmentPostProcessor, Ordered {

	/** Name of the property source that carries the defaults. */
	public static final String PROPERTY_SOURCE_NAME = "redlockLoggingDefaults";

	/** The logging level property of Lettuce's reconnect lines. */
	static final String WATCHDOG_LEVEL = "logging.level.io.lettuce.core.protocol.ConnectionWatchdog";

	@Override
	public int getOrder() {
		// after the configuration files, so that redlock.enabled is known
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (!environment.getProperty("redlock.enabled", Boolean.class, true)
				|| environment.getPropertySources().contains(PROPERTY_SOURCE_NAME)) {
			return;
		}
		environment.getPropertySources()
			.addLast(new MapPropertySource(PROPERTY_SOURCE_NAME, Map.of(WATCHDOG_LEVEL, "ERROR")));
	}

}
