package io.github.redlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.ResolvableType;

/**
 * Locks around a method that returns a {@code CompletionStage}: acquired before the call,
 * held until the stage completes, then checked and released; the caller gets a stage that
 * completes after the release, off Lettuce's I/O threads.
 * <p>
 * Not reentrant: each call takes leases of its own, since its work outlives the call and
 * a thread that calls twice (a consumer loop, a scheduler) must not run two bodies at
 * once under one lease. A call waits for the lock on the calling thread; a failure to
 * acquire it is a failed stage, as any failure of the work is. Read, write and permit
 * leases are taken the same way ({@link MethodLocks#acquireAsync}), so they neither join
 * nor downgrade a lock the calling thread holds.
 *
 * @author redlock contributors
 */
final class CompletionStageLocking {

	private static final Log logger = LogFactory.getLog(CompletionStageLocking.class);

	private final MethodLocks locks;

	CompletionStageLocking(MethodLocks locks) {
		this.locks = locks;
	}

	@Nullable Object lock(MethodInvocation invocation, LockOperation operation, List<String> keys, Duration ttl,
			Duration waitTime) throws Throwable {
		List<Lease> leases;
		try {
			leases = this.locks.acquireAll(operation, keys, ttl, waitTime, true);
		}
		catch (LockAcquisitionException ex) {
			if (MethodLocks.skips(operation, ex)) {
				Class<?> value = ResolvableType.forMethodReturnType(invocation.getMethod())
					.as(CompletionStage.class)
					.resolveGeneric(0);
				return CompletableFuture.completedFuture((value == Optional.class) ? Optional.empty() : null);
			}
			return CompletableFuture.failedFuture(ex);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		Object returned;
		CurrentLease.push(leases);
		try {
			returned = invocation.proceed();
		}
		catch (Throwable ex) {
			MethodLocks.releaseAll(leases);
			throw ex;
		}
		finally {
			CurrentLease.pop();
		}
		if (returned == null) {
			MethodLocks.releaseAll(leases);
			return null;
		}
		CompletableFuture<Object> result = new CompletableFuture<>();
		((CompletionStage<?>) returned).whenComplete((value, ex) -> {
			LockLostException lost = this.locks.lost(operation, leases);
			MethodLocks.releaseAllAsync(leases).whenComplete((ignored, releaseEx) -> {
				if (ex != null) {
					if (lost != null) {
						ex.addSuppressed(lost);
					}
					result.completeExceptionally(ex);
					return;
				}
				if (lost != null && this.locks.lostLockPolicy() == LostLockPolicy.THROW) {
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

}
