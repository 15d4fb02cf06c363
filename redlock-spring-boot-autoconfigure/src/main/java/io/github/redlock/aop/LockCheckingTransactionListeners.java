package io.github.redlock.aop;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.transaction.ConfigurableTransactionManager;

/**
 * Adds the listener that checks {@code @DistributedLock} locks before a commit to every
 * transaction manager of the application, so that a transaction that begins inside a
 * locked method (the default order) rolls back when the lock was lost before its commit.
 * Registered by the auto-configuration when Spring's transaction support is present.
 *
 * @author redlock contributors
 */
public final class LockCheckingTransactionListeners implements BeanPostProcessor {

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof ConfigurableTransactionManager manager) {
			TransactionAwareRelease.listenOn(manager);
		}
		return bean;
	}

}
