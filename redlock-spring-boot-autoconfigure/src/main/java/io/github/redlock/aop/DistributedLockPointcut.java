package io.github.redlock.aop;

import java.lang.reflect.Method;

import io.github.redlock.annotation.DistributedLock;

import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Matches methods that carry {@code @DistributedLock}, parsing their lock as it does; the
 * first question about a class checks every locked method of it.
 *
 * @author redlock contributors
 */
final class DistributedLockPointcut extends StaticMethodMatcherPointcut {

	private final LockOperationSource source;

	DistributedLockPointcut(LockOperationSource source) {
		this.source = source;
		setClassFilter((type) -> AnnotationUtils.isCandidateClass(type, DistributedLock.class));
	}

	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		if (targetClass != null) {
			this.source.operations(targetClass);
		}
		return this.source.find(method, targetClass) != null;
	}

}
