package io.github.redlock.engine.node;

import java.util.concurrent.TimeUnit;

import io.github.redlock.engine.node.ConnectionGenerations.Generation;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * When one node's trust runs its check again after a check failed for a reason other than
 * a permission (a timeout, a dropped connection, a reply it could not read). It logs
 * under {@link NodeTrust}'s category, where operators look for why a node does not count.
 * <p>
 * <b>Invariants.</b> A failed check is retried with a back-off, not by every command:
 * after failures on one connection generation, the next check on it is due only once a
 * delay has passed that doubles with each failure, from {@link #FIRST_NANOS} up to
 * {@link #MAX_NANOS}; a new generation (a reconnect) is checked at once.
 *
 * @author redlock contributors
 */
final class CheckRetries {

	private static final Log logger = LogFactory.getLog(NodeTrust.class);

	/**
	 * The first delay before a failed restart check runs again; doubled up to the max.
	 */
	private static final long FIRST_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(30);

	private final String node;

	private final ClientResources resources;

	/**
	 * Restart checks failed in a row on the connection of {@link #failedGeneration}, for
	 * a reason other than a permission; {@code 0} once one succeeds.
	 */
	private volatile int failedChecks;

	private volatile @Nullable Generation failedGeneration;

	/** Why the last check failed, while {@link #failedChecks} is not zero. */
	private volatile @Nullable String checkFailure;

	/** When a failed check may run again, as {@link System#nanoTime()}. */
	private volatile long nextCheckNanos;

	CheckRetries(String node, ClientResources resources) {
		this.node = node;
		this.resources = resources;
	}

	/**
	 * Returns whether a restart check may run now on the connection of
	 * {@code generation}: at once after a reconnect, else only once the back-off after
	 * failed checks has passed, so that commands do not each send one.
	 */
	boolean due(Generation generation) {
		return this.failedChecks == 0 || this.failedGeneration != generation
				|| System.nanoTime() - this.nextCheckNanos >= 0;
	}

	/**
	 * Returns why the node does not count while its next check is not due.
	 */
	String describe() {
		return "its restart check failed (" + this.checkFailure + "); checking again in "
				+ TimeUnit.NANOSECONDS.toSeconds(Math.max(0, this.nextCheckNanos - System.nanoTime()) + 999_999_999)
				+ "s";
	}

	/**
	 * Notes a restart check that failed for a reason other than a permission: said at
	 * WARN on the first failure of a connection that is up (a node that is down is
	 * reported as such), and tried again on its own after a delay that doubles with each
	 * failure, up to {@link #MAX_NANOS}.
	 * @param checked the connection the check ran on
	 * @param generation its generation
	 * @param ex why the check failed
	 * @param retry runs the check again, when no other check ran meanwhile
	 */
	void failed(StatefulRedisConnection<String, String> checked, Generation generation, Throwable ex, Runnable retry) {
		int failures = (this.failedGeneration == generation) ? this.failedChecks + 1 : 1;
		long delay = Math.min(MAX_NANOS, FIRST_NANOS << Math.min(failures - 1, 5));
		this.checkFailure = NodeErrors.message(ex);
		this.failedGeneration = generation;
		this.nextCheckNanos = System.nanoTime() + delay;
		this.failedChecks = failures;
		if (failures == 1 && checked.isOpen()) {
			logger.warn("Could not check whether redlock node " + this.node + " restarted (" + this.checkFailure
					+ "): it counts toward no quorum until a check succeeds; checking again in "
					+ TimeUnit.NANOSECONDS.toSeconds(delay) + "s, then less often, up to every "
					+ TimeUnit.NANOSECONDS.toSeconds(MAX_NANOS) + "s");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Could not check redlock node " + this.node + " for a restart", ex);
		}
		try {
			this.resources.eventExecutorGroup().schedule(() -> {
				if (this.failedChecks == failures && this.failedGeneration == generation && generation.stillCurrent()) {
					retry.run();
				}
			}, delay, TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException rejected) {
			// the resources are shutting down with the registry
		}
	}

	/**
	 * Notes a check that ran to its end: the back-off starts over.
	 */
	void succeeded() {
		if (this.failedChecks > 0) {
			this.failedChecks = 0;
			logger.info("Redlock node " + this.node + " passed its restart check after it had failed ("
					+ this.checkFailure + ")");
		}
	}

}
