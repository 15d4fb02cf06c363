package io.github.redlock.engine.kinds;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redlock.Durations;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockAcquisitionException.Reason;
import io.github.redlock.LockKeys;
import io.github.redlock.RedlockException;
import io.github.redlock.engine.lease.RedlockLease;

/**
 * The blocking API's wait for an acquisition of any kind ({@link AcquisitionLoop}).
 *
 * @author redlock contributors
 */
public final class AcquisitionAwait {

	private AcquisitionAwait() {
	}

	/**
	 * Returns what a one-attempt acquisition ({@code tryAcquire}) gives for its failure:
	 * empty when the lock is held (by another owner, or by this thread in a mode that
	 * excludes the one asked for) or the attempt was interrupted, so that empty means
	 * "not now"; the failure itself, thrown, when the lock service could not decide (too
	 * few usable nodes, or nodes that answered too late), so that an outage is never
	 * taken for a busy lock.
	 * @param ex why the attempt failed
	 * @param <T> the lease type
	 * @return empty, for a held lock or an interrupted attempt
	 * @throws LockAcquisitionException {@code ex}, for {@link Reason#NO_QUORUM} and
	 * {@link Reason#VALIDITY_EXHAUSTED}
	 */
	public static <T> Optional<T> emptyUnlessUnavailable(LockAcquisitionException ex) {
		if (ex.getReason() == Reason.NO_QUORUM || ex.getReason() == Reason.VALIDITY_EXHAUSTED) {
			throw ex;
		}
		return Optional.empty();
	}

	/**
	 * Waits for an acquisition on the caller's thread, at most {@code bound}: the wait
	 * time plus what deciding the last attempt may take
	 * ({@code RedlockRegistry.decisionBound}). The engine decides every acquisition
	 * within that; should it not, the caller gets a {@link LockAcquisitionException}
	 * rather than a hang, and the acquisition is abandoned (a lease granted after that is
	 * released at once).
	 * @param future the acquisition
	 * @param key the lock key, for the message
	 * @param boundNanos how long to wait at most, in ns
	 * @throws InterruptedException if interrupted, which abandons the acquisition
	 * @throws LockAcquisitionException rethrown from the caller's thread, so that its
	 * stack trace shows the caller
	 */
	// a LockAcquisitionException always has a message: each constructor sets one
	@SuppressWarnings("NullAway")
	public static RedlockLease await(CompletableFuture<RedlockLease> future, String key, long boundNanos)
			throws InterruptedException {
		try {
			return future.get(boundNanos, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			future.cancel(false);
			throw ex;
		}
		catch (TimeoutException ex) {
			future.cancel(false);
			throw new LockAcquisitionException(LockAcquisitionException.Reason.NO_QUORUM, key, "Lock '"
					+ LockKeys.printable(key) + "' was not acquired: the acquisition was not decided within "
					+ Durations.format(Duration.ofNanos(boundNanos))
					+ " (its wait time, the connect timeout and two rounds of node"
					+ " timeouts), so it was abandoned, and a lock granted to it later is released at once. This is"
					+ " a defect of the redlock engine: please report it with this registry's log.");
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof LockAcquisitionException failure) {
				throw new LockAcquisitionException(failure.getMessage(), failure);
			}
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new RedlockException("Lock acquisition failed", cause);
		}
	}

}
