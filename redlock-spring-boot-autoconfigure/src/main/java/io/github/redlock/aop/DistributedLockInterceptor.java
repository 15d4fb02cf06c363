package io.github.redlock.aop;

import java.time.Duration;
import java.util.List;

import io.github.redlock.autoconfigure.RedlockProperties;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Runs a {@code @DistributedLock} method under its locks. Finds the method's parsed lock
 * operation, evaluates its keys and durations, and hands the call to the locking that
 * fits its return type: {@link ReactiveLocking} for {@code Mono} and {@code Flux},
 * {@link CompletionStageLocking} for {@code CompletionStage}, {@link BlockingLocking} for
 * everything else.
 *
 * @author redlock contributors
 */
final class DistributedLockInterceptor implements MethodInterceptor {

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			DistributedLockInterceptor.class.getClassLoader());

	private final LockOperationSource source;

	private final LockKeyEvaluator evaluator;

	private final MethodLocks locks = new MethodLocks();

	private final BlockingLocking blocking = new BlockingLocking(this.locks);

	private final CompletionStageLocking completionStages = new CompletionStageLocking(this.locks);

	DistributedLockInterceptor(LockOperationSource source, LockKeyEvaluator evaluator) {
		this.source = source;
		this.evaluator = evaluator;
	}

	void setBeanFactory(BeanFactory beanFactory) {
		this.locks.setBeanFactory(beanFactory);
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target)
				: invocation.getMethod().getDeclaringClass();
		LockOperation operation = this.source.find(invocation.getMethod(), targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		List<String> keys = this.evaluator.keys(operation, invocation.getArguments(), target, targetClass,
				this.locks.beanFactory());
		RedlockProperties settings = this.locks.properties();
		Duration ttl = (operation.ttl() != null) ? operation.ttl() : settings.getDefaultTtl();
		Duration waitTime = (operation.waitTime() != null) ? operation.waitTime() : settings.getDefaultWaitTime();
		Class<?> returnType = invocation.getMethod().getReturnType();
		if (REACTOR_PRESENT && ReactiveLocking.isReactive(returnType)) {
			return ReactiveLocking.lock(this.locks, operation, keys, ttl, waitTime, invocation);
		}
		if (CompletionStageLocking.isCompletionStage(returnType)) {
			return this.completionStages.lock(invocation, operation, keys, ttl, waitTime);
		}
		return this.blocking.lock(invocation, operation, keys, ttl, waitTime);
	}

}
