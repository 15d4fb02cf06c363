package io.github.redlock.embedded.boot;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisServerBinary;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactoryInitializer;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.ResolvableType;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.ClassUtils;

/**
 * The nodes of the development mode: decides, just before the singletons of the context
 * are created, whether local nodes are needed, starts them, and stops them when the
 * context closes (after the beans created later, so after the lock registry has released
 * its leases).
 *
 * @author redlock contributors
 */
final class EmbeddedNodes implements BeanFactoryInitializer<ListableBeanFactory>, DisposableBean, EnvironmentAware {

	static final String BEAN_NAME = "redlockEmbeddedNodes";

	static final String CONNECTION_DETAILS = "io.github.redlock.autoconfigure.RedlockConnectionDetails";

	static final String PROPERTIES_DETAILS = "io.github.redlock.autoconfigure.PropertiesRedlockConnectionDetails";

	/** Clusters are never started here: the development mode stays on single nodes. */
	private static final Bindable<List<List<String>>> CLUSTERS = Bindable.of(ResolvableType
		.forClassWithGenerics(List.class, ResolvableType.forClassWithGenerics(List.class, String.class)));

	private static final Log logger = LogFactory.getLog(EmbeddedNodesEnvironmentPostProcessor.class);

	private ConfigurableEnvironment environment;

	private volatile @Nullable RedisFleet fleet;

	EmbeddedNodes(ConfigurableEnvironment environment) {
		this.environment = environment;
	}

	/**
	 * Takes the application context's environment, where the nodes' properties must go:
	 * the one the post-processor saw is replaced by a copy when
	 * {@code spring.main.web-application-type} changes the kind of application.
	 */
	@Override
	public void setEnvironment(Environment environment) {
		if (environment instanceof ConfigurableEnvironment configurable) {
			this.environment = configurable;
		}
	}

	@Override
	public void initialize(ListableBeanFactory beanFactory) {
		Binder binder = Binder.get(this.environment);
		Boolean enabled = binder.bind("redlock.embedded.enabled", Boolean.class).orElse(null);
		if (!binder.bind("redlock.enabled", Boolean.class).orElse(true) || Boolean.FALSE.equals(enabled)
				|| !binder.bind("redlock.nodes", Bindable.listOf(String.class)).orElse(List.of()).isEmpty()
				|| !binder.bind("redlock.clusters", CLUSTERS).orElse(List.of()).isEmpty()
				|| hasConnectionDetails(beanFactory)) {
			return;
		}
		if (enabled == null && !TestDetector.inTest()) {
			throw new EmbeddedNodesRefusedException();
		}
		int size = binder.bind("redlock.embedded.nodes", Integer.class).orElse(5);
		if (size < 1) {
			throw new IllegalArgumentException("redlock.embedded.nodes must be at least 1, was " + size
					+ ": use 3 or 5, or set redlock.embedded.enabled=false");
		}
		// stopped by the context's close, after the registry, also at JVM exit: the
		// nodes' reaper would kill them while the registry still runs
		RedisFleet started = RedisFleet.start(size).leaveToOwnerAtExit();
		this.fleet = started;
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("redlock.nodes", String.join(",", started.uris()));
		String restartGuard = this.environment.getProperty("redlock.restart-guard");
		if (restartGuard == null) {
			properties.put("redlock.restart-guard", "false");
		}
		this.environment.getPropertySources()
			.addLast(new MapPropertySource(EmbeddedNodesEnvironmentPostProcessor.PROPERTY_SOURCE_NAME, properties));
		logger.info("redlock.nodes is not set: started " + size
				+ " embedded redis-server nodes for DEVELOPMENT AND TESTS ONLY (they share this machine and keep nothing): "
				+ started.uris() + " (" + RedisServerBinary.get() + ")");
		logger.info(restartGuardMessage(restartGuard));
	}

	static String restartGuardMessage(@Nullable String restartGuard) {
		if (restartGuard == null) {
			return "redlock.restart-guard=false for the embedded nodes: they start empty, and the guard would keep "
					+ "every one of them out of quorums for redlock.max-ttl. Set redlock.restart-guard=true to test it.";
		}
		return "redlock.restart-guard=" + restartGuard + " as set" + (Boolean.parseBoolean(restartGuard.trim())
				? ": the embedded nodes start empty, so they count toward no quorum until redlock.max-ttl has passed"
				: "");
	}

	private static boolean hasConnectionDetails(ListableBeanFactory beanFactory) {
		ClassLoader classLoader = EmbeddedNodes.class.getClassLoader();
		if (!ClassUtils.isPresent(CONNECTION_DETAILS, classLoader)) {
			return false;
		}
		Class<?> type = ClassUtils.resolveClassName(CONNECTION_DETAILS, classLoader);
		// the auto-configuration's own details read redlock.nodes and redlock.clusters,
		// which are unset here
		for (String name : BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, type, true, false)) {
			Class<?> details = beanFactory.getType(name, false);
			if (details == null || !details.getName().equals(PROPERTIES_DETAILS)) {
				return true;
			}
		}
		return false;
	}

	@Override
	public void destroy() {
		RedisFleet running = this.fleet;
		if (running != null) {
			this.fleet = null;
			running.close();
			logger.info("Stopped the embedded redis-server nodes " + running.uris());
		}
	}

}
