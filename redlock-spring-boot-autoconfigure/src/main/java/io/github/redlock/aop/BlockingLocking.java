package io.github.redlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Locks around a method that returns a plain value: acquired before the call (blocking,
 * thread-reentrant), kept extended while it runs, checked before the commit of any
 * transaction that begins inside it and when it returns, and released after it, or after
 * the surrounding transaction completes; with a minimum hold, left on the nodes until it
 * ends. A call that skips when locked returns {@code null} or {@code Optional.empty()}
 * when another owner holds the lock.
 *
 * @author redlock contributors
 */
final class BlockingLocking {

	private static final boolean TRANSACTIONS_PRESENT = ClassUtils.isPresent(
			"org.springframework.transaction.support.TransactionSynchronizationManager",
			BlockingLocking.class.getClassLoader());

	private final MethodLocks locks;

	BlockingLocking(MethodLocks locks) {
		this.locks = locks;
	}

	@Nullable Object lock(MethodInvocation invocation, LockOperation operation, List<String> keys, Duration ttl,
			Duration waitTime) throws Throwable {
		List<Lease> leases;
		try {
			leases = this.locks.acquireAll(operation, keys, ttl, waitTime, false);
		}
		catch (LockAcquisitionException ex) {
			if (MethodLocks.skips(operation, ex)) {
				return (invocation.getMethod().getReturnType() == Optional.class) ? Optional.empty() : null;
			}
			throw ex;
		}
		Long holdUntil = MethodLocks.holdUntil(operation);
		CurrentLease.push(leases);
		boolean checkInside = TRANSACTIONS_PRESENT && TransactionAwareRelease.listening();
		if (checkInside) {
			TransactionAwareRelease.enter(() -> checkHeld(operation, leases));
		}
		try {
			Object result;
			try {
				result = invocation.proceed();
			}
			catch (Throwable ex) {
				LockLostException lost = this.locks.lost(operation, leases);
				if (lost != null) {
					ex.addSuppressed(lost);
				}
				throw ex;
			}
			checkHeld(operation, leases);
			return result;
		}
		finally {
			CurrentLease.pop();
			if (checkInside) {
				TransactionAwareRelease.exit();
			}
			if (!(TRANSACTIONS_PRESENT && TransactionAwareRelease.releaseAfterCompletion(
					() -> checkHeld(operation, leases), () -> MethodLocks.releaseAll(leases, holdUntil)))) {
				MethodLocks.releaseAll(leases, holdUntil);
			}
		}
	}

	private void checkHeld(LockOperation operation, List<Lease> leases) {
		LockLostException lost = this.locks.lost(operation, leases);
		if (lost != null) {
			this.locks.onLost(lost);
		}
	}

}
