package io.github.redlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;
import io.github.redlock.LockRegistry;
import io.github.redlock.RedlockException;
import io.github.redlock.autoconfigure.RedlockProperties;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.ObjectUtils;

/**
 * Runs a {@code @DistributedLock} method under its locks: acquired in a fixed order
 * before the call (all or nothing), kept extended while it runs, checked when it returns,
 * and released after it, or after the surrounding transaction completes.
 *
 * @author redlock contributors
 */
final class DistributedLockInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(DistributedLockInterceptor.class);

	private static final boolean TRANSACTIONS_PRESENT = ClassUtils.isPresent(
			"org.springframework.transaction.support.TransactionSynchronizationManager",
			DistributedLockInterceptor.class.getClassLoader());

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			DistributedLockInterceptor.class.getClassLoader());

	private final LockOperationSource source;

	private final LockKeyEvaluator evaluator;

	private volatile BeanFactory beanFactory;

	private volatile LockRegistry registry;

	private volatile RedlockProperties properties;

	DistributedLockInterceptor(LockOperationSource source, LockKeyEvaluator evaluator) {
		this.source = source;
		this.evaluator = evaluator;
	}

	void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
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
		List<String> keys = keys(operation, invocation.getArguments(), target, targetClass);
		RedlockProperties settings = properties();
		Duration ttl = (operation.ttl() != null) ? operation.ttl() : settings.getDefaultTtl();
		Duration waitTime = (operation.waitTime() != null) ? operation.waitTime() : settings.getDefaultWaitTime();
		Class<?> returnType = invocation.getMethod().getReturnType();
		if (REACTOR_PRESENT && ReactiveLocking.isReactive(returnType)) {
			return ReactiveLocking.lock(this, operation, keys, ttl, waitTime, invocation.proceed());
		}
		if (CompletionStage.class.isAssignableFrom(returnType)
				&& returnType.isAssignableFrom(CompletableFuture.class)) {
			return lockUntilComplete(invocation, operation, keys, ttl, waitTime);
		}
		return lockDuringCall(invocation, operation, keys, ttl, waitTime);
	}

	private Object lockDuringCall(MethodInvocation invocation, LockOperation operation, List<String> keys, Duration ttl,
			Duration waitTime) throws Throwable {
		List<Lease> leases = acquireAll(operation, keys, ttl, waitTime);
		CurrentLease.push(leases);
		try {
			Object result;
			try {
				result = invocation.proceed();
			}
			catch (Throwable ex) {
				LockLostException lost = lost(operation, leases);
				if (lost != null) {
					ex.addSuppressed(lost);
				}
				throw ex;
			}
			LockLostException lost = lost(operation, leases);
			if (lost != null) {
				onLost(lost);
			}
			return result;
		}
		finally {
			CurrentLease.pop();
			if (!(TRANSACTIONS_PRESENT && TransactionAwareRelease
				.releaseAfterCompletion(() -> checkBeforeCommit(operation, leases), () -> releaseAll(leases)))) {
				releaseAll(leases);
			}
		}
	}

	private void checkBeforeCommit(LockOperation operation, List<Lease> leases) {
		LockLostException lost = lost(operation, leases);
		if (lost != null) {
			onLost(lost);
		}
	}

	private Object lockUntilComplete(MethodInvocation invocation, LockOperation operation, List<String> keys,
			Duration ttl, Duration waitTime) throws Throwable {
		List<Lease> leases = acquireAll(operation, keys, ttl, waitTime);
		Object returned;
		CurrentLease.push(leases);
		try {
			returned = invocation.proceed();
		}
		catch (Throwable ex) {
			releaseAll(leases);
			throw ex;
		}
		finally {
			CurrentLease.pop();
		}
		if (returned == null) {
			releaseAll(leases);
			return null;
		}
		CompletableFuture<Object> result = new CompletableFuture<>();
		((CompletionStage<?>) returned).whenComplete((value, ex) -> {
			LockLostException lost = lost(operation, leases);
			releaseAllAsync(leases).whenComplete((ignored, releaseEx) -> {
				if (ex != null) {
					if (lost != null) {
						ex.addSuppressed(lost);
					}
					result.completeExceptionally(ex);
					return;
				}
				if (lost != null && properties().getLostLockPolicy() == LostLockPolicy.THROW) {
					result.completeExceptionally(lost);
					return;
				}
				if (lost != null) {
					logger.warn(lost.getMessage());
				}
				result.complete(value);
			});
		});
		return result;
	}

	/**
	 * Evaluates the key: one key, or the distinct elements of a collection or array,
	 * sorted so that every method locks them in the same order and none can deadlock
	 * another.
	 */
	List<String> keys(LockOperation operation, Object[] args, Object target, Class<?> targetClass) {
		Object value = this.evaluator.evaluate(operation, args, target, targetClass, this.beanFactory);
		if (value == null) {
			throw badKey(operation, "evaluated to null");
		}
		Collection<?> items;
		if (value instanceof Collection<?> collection) {
			items = collection;
		}
		else if (value.getClass().isArray()) {
			items = Arrays.asList(ObjectUtils.toObjectArray(value));
		}
		else {
			// the common case: one key, nothing to sort
			String key = value.toString();
			if (key.isEmpty()) {
				throw badKey(operation, "evaluated to an empty key");
			}
			return List.of(key);
		}
		TreeSet<String> keys = new TreeSet<>();
		for (Object item : items) {
			String key = (item != null) ? item.toString() : null;
			if (key == null || key.isEmpty()) {
				throw badKey(operation,
						(items.size() == 1) ? "evaluated to an empty key" : "contains a null or empty key");
			}
			keys.add(key);
		}
		if (keys.isEmpty()) {
			throw badKey(operation, "evaluated to an empty collection");
		}
		return new ArrayList<>(keys);
	}

	private static IllegalArgumentException badKey(LockOperation operation, String problem) {
		return new IllegalArgumentException("@DistributedLock key \"" + operation.keyExpression() + "\" of "
				+ operation.description() + " " + problem + ": a lock needs a non-empty key");
	}

	private List<Lease> acquireAll(LockOperation operation, List<String> keys, Duration ttl, Duration waitTime) {
		long deadline = System.nanoTime() + waitTime.toNanos();
		List<Lease> acquired = new ArrayList<>(keys.size());
		String current = keys.get(0);
		try {
			for (String key : keys) {
				current = key;
				// one wait time for all the keys: later keys get what is left of it
				Duration left = acquired.isEmpty() ? waitTime
						: Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
				acquired.add(registry().acquire(key, ttl, left, operation.autoExtend()));
			}
			return acquired;
		}
		catch (LockAcquisitionException ex) {
			releaseAll(acquired);
			throw new LockAcquisitionException(acquisitionMessage(operation, ex), ex);
		}
		catch (InterruptedException ex) {
			releaseAll(acquired);
			Thread.currentThread().interrupt();
			throw new RedlockException(
					"Interrupted while " + operation.description() + " waited for lock '" + current + "'", ex);
		}
		catch (RuntimeException | Error ex) {
			releaseAll(acquired);
			throw ex;
		}
	}

	static String acquisitionMessage(LockOperation operation, LockAcquisitionException ex) {
		return "@DistributedLock on " + operation.description() + ": " + ex.getMessage();
	}

	/**
	 * Returns an exception that says a lock was lost while the method ran, or
	 * {@code null} if every lease is still held.
	 */
	LockLostException lost(LockOperation operation, List<Lease> leases) {
		for (Lease lease : leases) {
			if (!lease.isHeld()) {
				return new LockLostException(lease.key(), "it was lost while " + operation.description()
						+ " ran (it expired, or could not be extended on a quorum of nodes)");
			}
		}
		return null;
	}

	void onLost(LockLostException lost) {
		if (properties().getLostLockPolicy() == LostLockPolicy.THROW) {
			throw lost;
		}
		logger.warn(lost.getMessage());
	}

	LostLockPolicy lostLockPolicy() {
		return properties().getLostLockPolicy();
	}

	static void releaseAll(List<Lease> leases) {
		for (int i = leases.size() - 1; i >= 0; i--) {
			try {
				leases.get(i).release();
			}
			catch (RuntimeException ex) {
				logger.debug("Could not release lock '" + leases.get(i).key() + "'", ex);
			}
		}
	}

	static CompletableFuture<Void> releaseAllAsync(List<Lease> leases) {
		CompletableFuture<?>[] releases = new CompletableFuture<?>[leases.size()];
		for (int i = 0; i < releases.length; i++) {
			releases[i] = leases.get(i).releaseAsync().exceptionally((ex) -> null);
		}
		return CompletableFuture.allOf(releases);
	}

	LockRegistry registry() {
		LockRegistry current = this.registry;
		if (current == null) {
			current = this.beanFactory.getBean(LockRegistry.class);
			this.registry = current;
		}
		return current;
	}

	private RedlockProperties properties() {
		RedlockProperties current = this.properties;
		if (current == null) {
			current = this.beanFactory.getBeanProvider(RedlockProperties.class).getIfAvailable(RedlockProperties::new);
			this.properties = current;
		}
		return current;
	}

}
