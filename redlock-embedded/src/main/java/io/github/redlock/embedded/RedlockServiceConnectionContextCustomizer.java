package io.github.redlock.embedded;

import java.lang.reflect.Field;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactoryNotFoundException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Registers the connection details of one {@link RedlockServiceConnection} fleet, and the
 * fleet itself, in a test's application context, and stops the fleet when that context
 * closes. Its identity is the field, so that two test classes with fleets of their own
 * never share a cached context.
 *
 * @author redlock contributors
 */
final class RedlockServiceConnectionContextCustomizer implements ContextCustomizer {

	static final String PROPERTY_SOURCE_NAME = "redlockServiceConnection";

	private static final Log logger = LogFactory.getLog(RedlockServiceConnection.class);

	private final Field field;

	private final RedisFleetExtension extension;

	RedlockServiceConnectionContextCustomizer(Field field, RedisFleetExtension extension) {
		this.field = field;
		this.extension = extension;
	}

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
		ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
		RedisFleet fleet = this.extension.attachToContext();
		Map<Class<?>, ConnectionDetails> details;
		try {
			details = new ConnectionDetailsFactories(context.getClassLoader()).getConnectionDetails(fleet, true);
		}
		catch (ConnectionDetailsFactoryNotFoundException ex) {
			this.extension.detachFromContext();
			throw new IllegalStateException("@RedlockServiceConnection on " + this.field.getDeclaringClass().getName()
					+ "." + this.field.getName() + " found no connection details factory for its fleet: add"
					+ " io.github.redlock:redlock-embedded-boot at test scope beside redlock-embedded", ex);
		}
		// destroyed last, so after the lock registry has released its leases
		((DefaultListableBeanFactory) beanFactory).registerDisposableBean("redlockServiceConnectionFleetStop",
				(DisposableBean) this.extension::detachFromContext);
		details.forEach((type, connectionDetails) -> beanFactory
			.registerSingleton("redlockServiceConnection" + type.getSimpleName(), connectionDetails));
		beanFactory.registerSingleton("redlockServiceConnectionFleet", fleet);
		String restartGuard = context.getEnvironment().getProperty("redlock.restart-guard");
		if (restartGuard == null) {
			context.getEnvironment()
				.getPropertySources()
				.addLast(new MapPropertySource(PROPERTY_SOURCE_NAME, Map.of("redlock.restart-guard", "false")));
			logger.info("redlock.restart-guard=false for the @RedlockServiceConnection fleet " + fleet.uris()
					+ ": its nodes start empty, and the guard would keep every one of them out of quorums for "
					+ "redlock.max-ttl. Set redlock.restart-guard=true to test it.");
		}
		else {
			logger.info("redlock.restart-guard=" + restartGuard + " as set, for the @RedlockServiceConnection fleet "
					+ fleet.uris());
		}
	}

	@Override
	public boolean equals(Object other) {
		return (this == other) || (other instanceof RedlockServiceConnectionContextCustomizer customizer
				&& this.field.equals(customizer.field));
	}

	@Override
	public int hashCode() {
		return this.field.hashCode();
	}

}
