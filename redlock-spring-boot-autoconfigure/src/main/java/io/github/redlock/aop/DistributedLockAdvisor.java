package io.github.redlock.aop;

import java.util.List;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;

/**
 * Applies {@code @DistributedLock}, as Spring's cache advisor applies {@code @Cacheable}.
 * Ordered just before the transaction advisor by default ({@code redlock.order}), so that
 * the lock covers the whole transaction; the release waits for a transaction that is
 * still running whatever the order.
 *
 * @author redlock contributors
 */
public final class DistributedLockAdvisor extends AbstractPointcutAdvisor implements BeanFactoryAware {

	private static final long serialVersionUID = 1L;

	/** The most keys one call locks unless {@code redlock.max-keys} says otherwise. */
	public static final int DEFAULT_MAX_KEYS = 100;

	private final transient LockOperationSource source;

	private final transient DistributedLockInterceptor interceptor;

	private final transient Pointcut pointcut;

	/**
	 * Creates the advisor.
	 * @param order its order among advisors
	 */
	public DistributedLockAdvisor(int order) {
		this(order, DEFAULT_MAX_KEYS);
	}

	/**
	 * Creates the advisor.
	 * @param order its order among advisors
	 * @param maxKeys the most distinct keys one call may lock when its key is a
	 * collection or an array
	 */
	public DistributedLockAdvisor(int order, int maxKeys) {
		if (maxKeys < 1) {
			throw new IllegalArgumentException("redlock.max-keys must be at least 1, not " + maxKeys);
		}
		LockKeyEvaluator evaluator = new LockKeyEvaluator(maxKeys);
		this.source = new LockOperationSource(evaluator);
		this.interceptor = new DistributedLockInterceptor(this.source, evaluator);
		this.pointcut = new DistributedLockPointcut(this.source);
		setOrder(order);
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.source.setBeanFactory(beanFactory);
		this.interceptor.setBeanFactory(beanFactory);
	}

	/**
	 * Returns the locks of every method of a class, parsed and checked.
	 */
	List<LockOperation> operations(Class<?> targetClass) {
		return this.source.operations(targetClass);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
