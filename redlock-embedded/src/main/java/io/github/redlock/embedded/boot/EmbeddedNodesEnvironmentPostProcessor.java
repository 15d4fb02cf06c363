package io.github.redlock.embedded.boot;

import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The development mode: in an application that has {@code redlock-embedded} on its
 * classpath and no {@code redlock.nodes} (nor {@code redlock.clusters}: it never starts
 * clusters), starts {@code redlock.embedded.nodes} (5) local {@code redis-server} nodes,
 * points {@code redlock.nodes} at them, and stops them after the application context
 * closes. Meant for development and tests only: the nodes share one machine and keep
 * nothing. It starts by itself only in a test (a JUnit, TestNG or Spring Boot test class
 * on the stack of the thread that refreshes the context); anywhere else it needs
 * {@code redlock.embedded.enabled=true} (as {@code spring-boot:test-run}'s main class
 * sets), and without it start-up fails with an {@link EmbeddedNodesRefusedException},
 * since in production (an unset {@code REDLOCK_NODES_0}, a test-scoped dependency
 * packaged by mistake) every instance would lock on nodes of its own.
 * <p>
 * The decision waits for the refresh of the application context, just before its
 * singletons are created: by then every way of setting {@code redlock.nodes} has had its
 * say, including a test's {@code @DynamicPropertySource} methods and
 * {@code DynamicPropertyRegistrar} beans, which Spring adds after environment
 * post-processors have run. Never starts when nodes are configured, when a
 * {@code RedlockConnectionDetails} bean supplies them (such as a test's
 * {@code @RedlockServiceConnection} fleet), or with
 * {@code redlock.embedded.enabled=false} or {@code redlock.enabled=false}.
 * <p>
 * Unless {@code redlock.restart-guard} is set, it is turned off for the local nodes, and
 * the log says so: they start empty, and the guard would keep every one of them out of
 * quorums for {@code redlock.max-ttl}.
 *
 * @author redlock contributors
 */
public class EmbeddedNodesEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

	/** Name of the property source that carries the embedded nodes. */
	public static final String PROPERTY_SOURCE_NAME = "redlockEmbeddedNodes";

	/**
	 * Creates the post-processor.
	 * @param logFactory where to log once logging is set up
	 */
	public EmbeddedNodesEnvironmentPostProcessor(DeferredLogFactory logFactory) {
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
				|| Boolean.FALSE.equals(binder.bind("redlock.embedded.enabled", Boolean.class).orElse(null))) {
			return;
		}
		application.addInitializers((context) -> context.addBeanFactoryPostProcessor(new Registration(environment)));
	}

	/**
	 * Registers the {@link EmbeddedNodes} once the refresh has begun, after every
	 * initializer (a test's context customizers among them) has registered its beans, so
	 * that the nodes decide after Spring's {@code DynamicPropertyRegistrar} beans have
	 * added their properties.
	 */
	private static final class Registration implements BeanDefinitionRegistryPostProcessor {

		private final ConfigurableEnvironment environment;

		Registration(ConfigurableEnvironment environment) {
			this.environment = environment;
		}

		@Override
		public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
			if (registry.containsBeanDefinition(EmbeddedNodes.BEAN_NAME)) {
				return;
			}
			RootBeanDefinition definition = new RootBeanDefinition(EmbeddedNodes.class,
					() -> new EmbeddedNodes(this.environment));
			definition.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
			// AOT cannot generate code for an instance supplier; none is needed, since
			// this
			// registration runs again when a context restored from generated code
			// refreshes
			definition.setAttribute(BeanRegistrationAotProcessor.IGNORE_REGISTRATION_ATTRIBUTE, true);
			registry.registerBeanDefinition(EmbeddedNodes.BEAN_NAME, definition);
		}

	}

}
