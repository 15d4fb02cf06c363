package io.github.redlock.testcontainers;

import java.util.ArrayList;
import java.util.List;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import org.testcontainers.containers.Container;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigureOrder;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.testcontainers.beans.TestcontainerBeanDefinition;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Auto-configuration for the container beans annotated
 * {@code @ServiceConnection("redlock")} (a {@code @TestConfiguration}'s {@code @Bean}
 * methods, or the fields of {@code @ImportTestcontainers}): a node for each, registered
 * before Spring Boot's own service connections, which would keep one of them.
 *
 * @author redlock contributors
 */
@AutoConfiguration(before = RedlockAutoConfiguration.class,
		beforeName = "org.springframework.boot.testcontainers.service.connection.ServiceConnectionAutoConfiguration")
@AutoConfigureOrder(Ordered.HIGHEST_PRECEDENCE)
@ConditionalOnClass({ Container.class, ServiceConnection.class })
@Import(RedlockServiceConnectionAutoConfiguration.Registrar.class)
public final class RedlockServiceConnectionAutoConfiguration {

	static final class Registrar implements ImportBeanDefinitionRegistrar {

		private final BeanFactory beanFactory;

		Registrar(BeanFactory beanFactory) {
			this.beanFactory = beanFactory;
		}

		@Override
		public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
			if (!(this.beanFactory instanceof ConfigurableListableBeanFactory beanFactory)) {
				return;
			}
			List<RedlockContainerNodes.Node> nodes = new ArrayList<>();
			for (String beanName : beanFactory.getBeanNamesForType(Container.class, true, false)) {
				MergedAnnotations annotations = annotations(beanFactory, beanName);
				boolean node = beanFactory.findAllAnnotationsOnBean(beanName, ServiceConnection.class, false)
					.stream()
					.map(MergedAnnotation::from)
					.anyMatch(RedlockContainerNodes::isNode)
						|| annotations.stream(ServiceConnection.class).anyMatch(RedlockContainerNodes::isNode);
				if (node) {
					RedlockContainerNodes.refuseTls("bean '" + beanName + "'", (type) -> annotations.isPresent(type)
							|| beanFactory.findAnnotationOnBean(beanName, type, false) != null);
					nodes.add(new RedlockContainerNodes.Node(beanName, beanName,
							() -> beanFactory.getBean(beanName, Container.class)));
				}
			}
			RedlockContainerNodes.register(beanFactory, nodes);
		}

		private static MergedAnnotations annotations(ConfigurableListableBeanFactory beanFactory, String beanName) {
			BeanDefinition definition = beanFactory.containsBeanDefinition(beanName)
					? beanFactory.getBeanDefinition(beanName) : null;
			return (definition instanceof TestcontainerBeanDefinition testcontainer) ? testcontainer.getAnnotations()
					: MergedAnnotations.of(List.of());
		}

	}

}
