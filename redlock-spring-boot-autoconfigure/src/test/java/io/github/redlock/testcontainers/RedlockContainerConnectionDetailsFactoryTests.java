package io.github.redlock.testcontainers;

import java.util.List;
import java.util.Map;

import io.github.redlock.autoconfigure.RedlockNodeConnectionDetails;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.Container;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSources;
import org.springframework.boot.testcontainers.service.connection.PemTrustStore;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Which containers become nodes of the quorum, given as Spring Boot gives them to the
 * factories, with containers that are never started.
 */
class RedlockContainerConnectionDetailsFactoryTests {

	private final Origin origin = new Origin() {

		@Override
		public String toString() {
			return "ShopTests.redlock1";
		}

	};

	@Test
	void aContainerNamedRedlockIsANodeNamedAfterItsField() throws Exception {
		StandInContainer container = new StandInContainer("redis:7.4", () -> 32768);
		RedlockNodeConnectionDetails node = new RedlockContainerConnectionDetailsFactory()
			.getConnectionDetails(source(container, "redlock"));
		assertThat(node).isNotNull();
		((RedlockContainerConnectionDetailsFactory.RedlockContainerConnectionDetails) node).afterPropertiesSet();
		assertThat(node.getName()).isEqualTo("ShopTests.redlock1");
		assertThat(node.getHost()).isEqualTo("127.0.0.1");
		assertThat(node.getPort()).isEqualTo(32768);
		assertThat(container.isRunning()).isTrue();
		assertThat(node.getSslBundle()).isNull();
	}

	@Test
	void springBootGivesARedlockContainerOnlyANodeAndAPlainRedisContainerOnlyItsRedisConnection() {
		ConnectionDetailsFactories factories = new ConnectionDetailsFactories(null);
		StandInContainer container = new StandInContainer("redis:7.4", () -> 32768);
		assertThat(all(factories, source(container, "redlock"))).containsOnlyKeys(RedlockNodeConnectionDetails.class);
		assertThat(all(factories, source(container, ""))).containsOnlyKeys(DataRedisConnectionDetails.class);
	}

	@Test
	void theNodesReplaceTheOneSpringBootRegistered() {
		// Spring Boot's test context customizer may run first and register one node
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		RootBeanDefinition springBoots = new RootBeanDefinition(
				RedlockContainerConnectionDetailsFactory.RedlockContainerConnectionDetails.class);
		springBoots.setAttribute(ServiceConnection.class.getName(), true);
		beanFactory.registerBeanDefinition("redlockContainerConnectionDetailsForTest", springBoots);
		StandInContainer container = new StandInContainer("redis:7.4", () -> 32768);
		RedlockContainerNodes.register(beanFactory,
				List.of(new RedlockContainerNodes.Node("redlock1", "ShopTests.redlock1", () -> container),
						new RedlockContainerNodes.Node("redlock2", "ShopTests.redlock2", () -> container)));
		assertThat(beanFactory.getBeanNamesForType(RedlockNodeConnectionDetails.class)).containsExactlyInAnyOrder(
				"redlockNodeConnectionDetailsForRedlock1", "redlockNodeConnectionDetailsForRedlock2");
	}

	@Test
	void springBootsSslAnnotationsOnANodeAreRefusedRatherThanIgnored() {
		assertThatIllegalStateException()
			.isThrownBy(() -> new RedlockServiceConnectionContextCustomizerFactory()
				.createContextCustomizer(TlsNodes.class, List.of()))
			.withMessageContaining("@PemTrustStore on the @ServiceConnection(\"redlock\") container")
			.withMessageContaining("TLS is not supported");
	}

	@Test
	void aTestClassWithoutRedlockContainersGetsNoCustomizer() {
		assertThat(
				new RedlockServiceConnectionContextCustomizerFactory().createContextCustomizer(Object.class, List.of()))
			.isNull();
	}

	@SuppressWarnings({ "rawtypes", "unchecked" })
	private ContainerConnectionSource<Container<?>> source(StandInContainer container, String name) {
		return (ContainerConnectionSource) ContainerConnectionSources.of(this.origin, StandInContainer.class, container,
				name);
	}

	private static Map<Class<?>, ConnectionDetails> all(ConnectionDetailsFactories factories,
			ContainerConnectionSource<Container<?>> source) {
		return factories.getConnectionDetails(source, false);
	}

	static class TlsNodes {

		@ServiceConnection("redlock")
		@PemTrustStore("classpath:ca.crt")
		static final StandInContainer node = new StandInContainer("redis:7.4", () -> 32768);

	}

}
