package io.github.redlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;

/**
 * Runs a {@code @DistributedLock} method under its locks. Finds the method's parsed lock
 * operation, evaluates its keys and durations, and hands the call to the locking that
 * fits its return type ({@link LockedReturnType}): {@link ReactiveLocking} for reactive
 * types, {@link CompletionStageLocking} for {@code CompletionStage},
 * {@link BlockingLocking} for plain values. An asynchronous method's failures to evaluate
 * its key or to acquire its lock are in its result (a failed stage, an error signal),
 * never thrown to its caller.
 *
 * @author redlock contributors
 */
final class DistributedLockInterceptor implements MethodInterceptor {

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
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target)
				: invocation.getMethod().getDeclaringClass();
		LockOperation operation = this.source.find(invocation.getMethod(), targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		DistributedLockSettings settings = this.locks.settings();
		Duration ttl = (operation.ttl() != null) ? operation.ttl() : settings.getDefaultTtl();
		Duration waitTime = (operation.waitTime() != null) ? operation.waitTime() : settings.getDefaultWaitTime();
		LockedReturnType returnType = operation.returnType();
		if (returnType.style() == LockedReturnType.Style.VALUE) {
			return this.blocking.lock(invocation, operation, keys(operation, invocation, target, targetClass), ttl,
					waitTime);
		}
		// an asynchronous method reports a bad key in its result, where its caller's
		// exceptionally() or onErrorResume looks for failures
		List<String> keys;
		try {
			keys = keys(operation, invocation, target, targetClass);
		}
		catch (RuntimeException ex) {
			return returnType.reactive() ? ReactiveLocking.error(returnType, ex) : CompletableFuture.failedFuture(ex);
		}
		if (returnType.reactive()) {
			return ReactiveLocking.lock(this.locks, operation, keys, ttl, waitTime, invocation);
		}
		return this.completionStages.lock(invocation, operation, keys, ttl, waitTime);
	}

	private List<String> keys(LockOperation operation, MethodInvocation invocation, @Nullable Object target,
			Class<?> targetClass) {
		return this.evaluator.keys(operation, invocation.getArguments(), target, targetClass, this.locks.beanFactory());
	}

}
