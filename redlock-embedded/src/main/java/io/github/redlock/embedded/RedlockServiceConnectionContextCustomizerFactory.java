package io.github.redlock.embedded;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@link RedlockServiceConnection} fields of a test class (and its enclosing
 * classes, for {@code @Nested} tests) and gives its context a
 * {@link RedlockServiceConnectionContextCustomizer}.
 *
 * @author redlock contributors
 */
class RedlockServiceConnectionContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		List<Field> fields = fields(testClass);
		if (fields.isEmpty()) {
			return null;
		}
		if (fields.size() > 1) {
			throw new IllegalStateException(testClass.getName() + " has " + fields.size()
					+ " @RedlockServiceConnection fields " + fields.stream().map(Field::getName).toList()
					+ ": one fleet supplies the nodes of a context; annotate only one");
		}
		Field field = fields.get(0);
		if (!Modifier.isStatic(field.getModifiers())) {
			throw new IllegalStateException("@RedlockServiceConnection field '" + field.getName() + "' of "
					+ field.getDeclaringClass().getName()
					+ " must be static: the fleet must run before the application context starts");
		}
		if (!RedisFleetExtension.class.isAssignableFrom(field.getType())) {
			throw new IllegalStateException("@RedlockServiceConnection field '" + field.getName() + "' of "
					+ field.getDeclaringClass().getName() + " is a " + field.getType().getName()
					+ ", not a RedisFleetExtension: declare it as RedisFleetExtension.nodes(3)");
		}
		ReflectionUtils.makeAccessible(field);
		RedisFleetExtension extension = (RedisFleetExtension) ReflectionUtils.getField(field, null);
		if (extension == null) {
			throw new IllegalStateException("@RedlockServiceConnection field '" + field.getName() + "' of "
					+ field.getDeclaringClass().getName()
					+ " is null: initialize it with RedisFleetExtension.nodes(3)");
		}
		return new RedlockServiceConnectionContextCustomizer(field, extension);
	}

	static List<Field> fields(Class<?> testClass) {
		List<Field> fields = new ArrayList<>();
		Class<?> candidate = testClass;
		while (candidate != null) {
			ReflectionUtils.doWithFields(candidate, fields::add,
					(field) -> MergedAnnotations.from(field).isPresent(RedlockServiceConnection.class)
							&& !fields.contains(field));
			candidate = TestContextAnnotationUtils.searchEnclosingClass(candidate) ? candidate.getEnclosingClass()
					: null;
		}
		return fields;
	}

}
