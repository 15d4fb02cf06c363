package io.github.redlock.aop;

import java.util.ArrayDeque;
import java.util.Deque;

import org.jspecify.annotations.Nullable;

import org.springframework.transaction.ConfigurableTransactionManager;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Ties a method's locks to the transactions around and inside it, so that a lock lost
 * before a commit stops it, whatever the order of the advisors:
 * <ul>
 * <li>a transaction already running when the locked call starts (the lock inside
 * {@code @Transactional}) is checked just before its commit, and the locks are released
 * only after it completes;</li>
 * <li>a transaction that begins inside the locked call (the default order, the lock
 * around {@code @Transactional}) is checked just before its commit too, through
 * {@link #listenOn}, registered on every transaction manager.</li>
 * </ul>
 * Loaded only when Spring's transaction support is present.
 *
 * @author redlock contributors
 */
final class TransactionAwareRelease {

	/**
	 * The checks of the locked calls running on a thread, innermost first; none if
	 * absent.
	 */
	private static final ThreadLocal<Deque<Runnable>> CHECKS = new ThreadLocal<>();

	/** Whether the listener is on a transaction manager, so that checks can be heard. */
	private static volatile boolean listening;

	private static final TransactionExecutionListener LISTENER = new TransactionExecutionListener() {

		@Override
		public void afterBegin(TransactionExecution transaction, @Nullable Throwable beginFailure) {
			Deque<Runnable> checks = CHECKS.get();
			if (checks == null) {
				return;
			}
			if (beginFailure == null && transaction.isNewTransaction()
					&& TransactionSynchronizationManager.isSynchronizationActive()) {
				for (Runnable check : checks) {
					TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

						@Override
						public void beforeCommit(boolean readOnly) {
							check.run();
						}

					});
				}
			}
		}

		@Override
		public String toString() {
			return "redlock: check @DistributedLock locks before a commit";
		}

	};

	private TransactionAwareRelease() {
	}

	/**
	 * Adds, once, the listener that checks the locks of the calls running on a thread
	 * before each transaction that begins inside them commits.
	 */
	static void listenOn(ConfigurableTransactionManager manager) {
		if (!manager.getTransactionExecutionListeners().contains(LISTENER)) {
			manager.addListener(LISTENER);
		}
		listening = true;
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

	/**
	 * Checks the locks of the call that starts on this thread before each transaction
	 * that begins inside it commits, until {@link #exit()}.
	 * @param beforeCommit the check; may throw to roll back
	 */
	static void enter(Runnable beforeCommit) {
		Deque<Runnable> checks = CHECKS.get();
		if (checks == null) {
			checks = new ArrayDeque<>(2);
			CHECKS.set(checks);
		}
		checks.push(new CallCheck(beforeCommit));
	}

	/**
	 * Ends the checks of the innermost call on this thread.
	 */
	static void exit() {
		Deque<Runnable> checks = CHECKS.get();
		((CallCheck) checks.pop()).ended = true;
		if (checks.isEmpty()) {
			CHECKS.remove();
		}
	}

	/**
	 * Returns whether a transaction manager hears the checks of {@link #enter}: without
	 * one, no transaction can begin inside a locked call to be checked.
	 */
	static boolean listening() {
		return listening;
	}

	/**
	 * The check of one locked call, void once the call ended: a transaction that outlives
	 * the call is not the call's to stop.
	 */
	private static final class CallCheck implements Runnable {

		private final Runnable check;

		private volatile boolean ended;

		private CallCheck(Runnable check) {
			this.check = check;
		}

		@Override
		public void run() {
			if (!this.ended) {
				this.check.run();
			}
		}

	}

}
