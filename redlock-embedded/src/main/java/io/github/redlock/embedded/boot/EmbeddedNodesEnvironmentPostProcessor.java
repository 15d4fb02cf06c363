package io.github.redlock.embedded.boot;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisServerBinary;
import org.apache.commons.logging.Log;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The development mode: in an application that has {@code redlock-embedded} on its
 * classpath and no {@code redlock.nodes}, starts {@code redlock.embedded.nodes} (5) local
 * {@code redis-server} nodes, points {@code redlock.nodes} at them, and stops them after
 * the application context closes. Never starts when nodes are configured, or with
 * {@code redlock.embedded.enabled=false} or {@code redlock.enabled=false}. Meant for
 * development and tests only: the nodes share one machine and keep nothing.
 *
 * @author redlock contributors
 */
public class EmbeddedNodesEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

	/** Name of the property source that carries the embedded nodes. */
	public static final String PROPERTY_SOURCE_NAME = "redlockEmbeddedNodes";

	private final Log logger;

	/**
	 * Creates the post-processor.
	 * @param logFactory where to log once logging is set up
	 */
	public EmbeddedNodesEnvironmentPostProcessor(DeferredLogFactory logFactory) {
		this.logger = logFactory.getLog(EmbeddedNodesEnvironmentPostProcessor.class);
	}

	@Override
	public int getOrder() {
		// after the configuration files have been read
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		Binder binder = Binder.get(environment);
		if (!binder.bind("redlock.enabled", Boolean.class).orElse(true)
				|| !binder.bind("redlock.embedded.enabled", Boolean.class).orElse(true)) {
			return;
		}
		if (!binder.bind("redlock.nodes", Bindable.listOf(String.class)).orElse(List.of()).isEmpty()) {
			return;
		}
		int size = binder.bind("redlock.embedded.nodes", Integer.class).orElse(5);
		if (size < 1) {
			throw new IllegalArgumentException("redlock.embedded.nodes must be at least 1, was " + size
					+ ": use 3 or 5, or set redlock.embedded.enabled=false");
		}
		RedisFleet fleet = RedisFleet.start(size);
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("redlock.nodes", String.join(",", fleet.uris()));
		if (environment.getProperty("redlock.restart-guard") == null) {
			// the nodes were just started: the guard would keep them out for max-ttl
			properties.put("redlock.restart-guard", "false");
		}
		environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE_NAME, properties));
		this.logger.info("redlock.nodes is not set: started " + size
				+ " embedded redis-server nodes for DEVELOPMENT AND TESTS ONLY (they share this machine and keep nothing): "
				+ fleet.uris() + " (" + RedisServerBinary.get() + ")");
		application.addInitializers((context) -> stopWith(context, fleet));
	}

	private void stopWith(ConfigurableApplicationContext context, RedisFleet fleet) {
		// destroyed after the beans created later, so after the lock registry has
		// released
		// its leases
		((DefaultListableBeanFactory) context.getBeanFactory()).registerDisposableBean("redlockEmbeddedNodes",
				(DisposableBean) () -> {
					fleet.close();
					this.logger.info("Stopped the embedded redis-server nodes " + fleet.uris());
				});
	}

}
