package io.github.redlock.aop;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Defers the release of a method's locks to the end of the transaction it ran in, so that
 * the lock covers the commit whatever the order of the advisors; a lock lost before the
 * commit can stop it. Loaded only when Spring's transaction support is present.
 *
 * @author redlock contributors
 */
final class TransactionAwareRelease {

	private TransactionAwareRelease() {
	}

	/**
	 * Registers the release after the current transaction completes.
	 * @param beforeCommit run just before the commit; may throw to roll back
	 * @param release run after the transaction committed or rolled back
	 * @return {@code false} if no transaction synchronization is active, in which case
	 * the caller releases at once
	 */
	static boolean releaseAfterCompletion(Runnable beforeCommit, Runnable release) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return false;
		}
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void beforeCommit(boolean readOnly) {
				beforeCommit.run();
			}

			@Override
			public void afterCompletion(int status) {
				release.run();
			}

		});
		return true;
	}

}
