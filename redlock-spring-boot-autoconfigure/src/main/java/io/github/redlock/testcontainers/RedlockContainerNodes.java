package io.github.redlock.testcontainers;

import java.lang.annotation.Annotation;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.github.redlock.autoconfigure.RedlockNodeConnectionDetails;
import org.testcontainers.containers.Container;
import org.testcontainers.lifecycle.Startable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.testcontainers.lifecycle.TestcontainersStartup;
import org.springframework.boot.testcontainers.service.connection.JksKeyStore;
import org.springframework.boot.testcontainers.service.connection.JksTrustStore;
import org.springframework.boot.testcontainers.service.connection.PemKeyStore;
import org.springframework.boot.testcontainers.service.connection.PemTrustStore;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.boot.testcontainers.service.connection.Ssl;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.util.StringUtils;

/**
 * Registers one {@link RedlockNodeConnectionDetails} bean for every container of an
 * application context annotated {@code @ServiceConnection("redlock")}. Spring Boot's
 * Testcontainers support registers one connection details bean per type and context (the
 * others are skipped: spring-projects/spring-boot#42979), which would make a quorum of
 * one of three containers; these nodes are registered before it, so that it skips its
 * own, and any it registered first is removed.
 *
 * @author redlock contributors
 */
final class RedlockContainerNodes {

	static final int REDIS_PORT = 6379;

	private static final List<Class<? extends Annotation>> SSL_ANNOTATIONS = List.of(Ssl.class, PemKeyStore.class,
			PemTrustStore.class, JksKeyStore.class, JksTrustStore.class);

	private RedlockContainerNodes() {
	}

	/**
	 * Returns whether a {@code @ServiceConnection} makes its container a node of the lock
	 * quorum.
	 */
	static boolean isNode(MergedAnnotation<ServiceConnection> serviceConnection) {
		return RedlockNodeConnectionDetails.SERVICE_CONNECTION_NAME
			.equalsIgnoreCase(serviceConnection.getString("name"));
	}

	/**
	 * Refuses Spring Boot's SSL annotations on a node's container: the bundle they make
	 * is built by Spring Boot's package-private code, out of reach here, and a node
	 * silently without TLS would be worse than none.
	 */
	static void refuseTls(String container, Predicate<Class<? extends Annotation>> annotated) {
		for (Class<? extends Annotation> type : SSL_ANNOTATIONS) {
			if (annotated.test(type)) {
				throw new IllegalStateException("@" + type.getSimpleName() + " on the @ServiceConnection(\"redlock\")"
						+ " container " + container + ": TLS is not supported for redlock's Testcontainers nodes."
						+ " Use Docker Compose services with Spring Boot's sslbundle labels, or redlock-embedded's"
						+ " RedisFleetExtension.tlsNodes with @RedlockServiceConnection");
			}
		}
	}

	/**
	 * Registers the nodes as singletons named as Spring Boot names its connection details
	 * beans, after removing any that Spring Boot registered for one of the same
	 * containers.
	 */
	static void register(ConfigurableListableBeanFactory beanFactory, List<Node> nodes) {
		for (String name : beanFactory.getBeanNamesForType(RedlockNodeConnectionDetails.class, true, false)) {
			if (beanFactory.containsBeanDefinition(name)
					&& beanFactory.getBeanDefinition(name).getAttribute(ServiceConnection.class.getName()) != null
					&& beanFactory instanceof BeanDefinitionRegistry registry) {
				registry.removeBeanDefinition(name);
			}
		}
		for (Node node : nodes) {
			beanFactory.registerSingleton("redlockNodeConnectionDetailsFor" + StringUtils.capitalize(node.beanName()),
					node);
		}
	}

	/**
	 * A node on a container, started the first time its host or port is asked for, as
	 * Spring Boot starts the containers of its own connection details.
	 *
	 * @param beanName the field or bean name, for the bean's name
	 * @param name the name that orders the node in the quorum
	 * @param container the container
	 */
	record Node(String beanName, String name,
			Supplier<Container<?>> container) implements RedlockNodeConnectionDetails {

		@Override
		public String getName() {
			return this.name;
		}

		@Override
		public String getHost() {
			return started().getHost();
		}

		@Override
		public int getPort() {
			return started().getMappedPort(REDIS_PORT);
		}

		@Override
		public boolean isEphemeral() {
			return true;
		}

		private Container<?> started() {
			Container<?> container = this.container.get();
			if (container instanceof Startable startable) {
				TestcontainersStartup.start(startable);
			}
			return container;
		}

		@Override
		public String toString() {
			return "redlock node of the container " + this.name;
		}

	}

}
