package io.github.redlock.testcontainers;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.Container;

import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the static container fields of a test class annotated
 * {@code @ServiceConnection("redlock")}, where Spring Boot finds its own
 * {@code @ServiceConnection} fields (the class, its enclosing classes, interfaces and
 * superclasses), and registers a node for each of them.
 *
 * @author redlock contributors
 */
class RedlockServiceConnectionContextCustomizerFactory implements ContextCustomizerFactory {

	private static final String SERVICE_CONNECTION = "org.springframework.boot.testcontainers.service.connection.ServiceConnection";

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		// listed for every test of an application with the starter, most of them without
		// Testcontainers
		if (!ClassUtils.isPresent(SERVICE_CONNECTION, testClass.getClassLoader())) {
			return null;
		}
		List<Field> fields = new ArrayList<>();
		collect(testClass, fields);
		return fields.isEmpty() ? null : new RedlockServiceConnectionContextCustomizer(fields);
	}

	private void collect(@Nullable Class<?> candidate, List<Field> fields) {
		if (candidate == null || candidate == Object.class) {
			return;
		}
		ReflectionUtils.doWithLocalFields(candidate, (field) -> {
			MergedAnnotations annotations = MergedAnnotations.from(field);
			if (annotations.stream(ServiceConnection.class).anyMatch(RedlockContainerNodes::isNode)) {
				String name = field.getDeclaringClass().getName() + "." + field.getName();
				if (!Modifier.isStatic(field.getModifiers())) {
					throw new IllegalStateException(
							"@ServiceConnection(\"redlock\") field " + name + " must be static");
				}
				RedlockContainerNodes.refuseTls(name, annotations::isPresent);
				fields.add(field);
			}
		});
		if (TestContextAnnotationUtils.searchEnclosingClass(candidate)) {
			collect(candidate.getEnclosingClass(), fields);
		}
		for (Class<?> implemented : candidate.getInterfaces()) {
			collect(implemented, fields);
		}
		collect(candidate.getSuperclass(), fields);
	}

	/**
	 * Registers the nodes of the fields; its identity is the fields, so that test classes
	 * with the same containers share a cached context.
	 */
	static final class RedlockServiceConnectionContextCustomizer implements ContextCustomizer {

		private final List<Field> fields;

		RedlockServiceConnectionContextCustomizer(List<Field> fields) {
			this.fields = List.copyOf(fields);
		}

		@Override
		public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
			RedlockContainerNodes.register(context.getBeanFactory(), this.fields.stream().map(this::node).toList());
		}

		private RedlockContainerNodes.Node node(Field field) {
			ReflectionUtils.makeAccessible(field);
			Object value = ReflectionUtils.getField(field, null);
			if (!(value instanceof Container<?> container)) {
				throw new IllegalStateException("@ServiceConnection(\"redlock\") field " + field.getName() + " in "
						+ field.getDeclaringClass().getName() + " must be a " + Container.class.getName());
			}
			// the name Spring Boot gives a field's connection details as their origin
			String name = ClassUtils.getShortName(field.getDeclaringClass()) + "." + field.getName();
			return new RedlockContainerNodes.Node(field.getName(), name, () -> container);
		}

		@Override
		public boolean equals(Object other) {
			return (this == other) || (other instanceof RedlockServiceConnectionContextCustomizer customizer
					&& this.fields.equals(customizer.fields));
		}

		@Override
		public int hashCode() {
			return this.fields.hashCode();
		}

	}

}
