package io.github.redlock.aop;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs to evaluate {@code @DistributedLock} keys: the classes
 * {@link LockKeyEvaluator} initializes by name at start-up, and the public methods of the
 * {@code #root} object, which SpEL calls reflectively ({@code #root.methodName}). The
 * annotated methods themselves are registered through {@code @Reflective} on the
 * annotation. Listed in {@code META-INF/spring/aot.factories}.
 *
 * @author redlock contributors
 */
final class DistributedLockRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		LockKeyEvaluator.INITIALIZED_AT_START.forEach(hints.reflection()::registerType);
		hints.reflection().registerType(LockExpressionRootObject.class, MemberCategory.INVOKE_PUBLIC_METHODS);
	}

}
