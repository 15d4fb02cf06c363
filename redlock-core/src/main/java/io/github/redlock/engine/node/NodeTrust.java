package io.github.redlock.engine.node;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.github.redlock.NodeFailure;
import io.github.redlock.engine.node.ConnectionGenerations.Generation;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Whether one node may count toward a quorum, checked on each connection:
 * <ul>
 * <li>the restart guard: from its uptime and the age of its redlock marker key, a node
 * that restarted or lost its data less than the guard time ago sits out until that time
 * has passed, so that every lock it may have forgotten has expired (the spec's "delayed
 * restart", done by the client);</li>
 * <li>which server it is, by {@code run_id}, with or without the guard, so that a server
 * listed twice under two names counts once ({@link ServerIdentities});</li>
 * <li>its memory policy, so that a node that may evict lock keys counts toward none
 * unless the operator accepts it.</li>
 * </ul>
 * These are one check, hence one class: they read one {@code INFO} reply and the marker
 * script on one connection, decide one answer (whether the node counts) and share one
 * retry with back-off; what the restart guard decides from the check is
 * {@link RestartDecision}'s.
 * <p>
 * <b>Invariants.</b> The node counts only while the current connection generation is
 * vouched for ({@link ConnectionGenerations}, which owns the rule that a reply counts
 * only on that generation) and the node is neither guarded, refused, a duplicate nor
 * evicting. Only a check that ran to its end vouches, for the generation it ran on; a
 * lost marker, a refused permission or its periodic re-check revoke that. A failed check
 * is retried with a back-off, not by every command.
 *
 * @author redlock contributors
 */
public final class NodeTrust {

	private static final Log logger = LogFactory.getLog(NodeTrust.class);

	private static final long RECHECK_DENIED_NANOS = TimeUnit.SECONDS.toNanos(10);

	/**
	 * The first delay before a failed restart check runs again; doubled up to the max.
	 */
	private static final long RECHECK_FAILED_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final long RECHECK_FAILED_MAX_NANOS = TimeUnit.SECONDS.toNanos(30);

	private final String node;

	private final RestartGuard guard;

	private final ClientResources resources;

	private final Supplier<StatefulRedisConnection<String, String>> connection;

	private final ConnectionGenerations generations;

	private final AtomicBoolean verifying = new AtomicBoolean();

	/**
	 * Restart checks failed in a row on the connection of {@link #failedGeneration}, for
	 * a reason other than a permission; {@code 0} once one succeeds.
	 */
	private volatile int failedChecks;

	private volatile Generation failedGeneration;

	/** Why the last check failed, while {@link #failedChecks} is not zero. */
	private volatile String checkFailure;

	/** When a failed check may run again, as {@link System#nanoTime()}. */
	private volatile long nextCheckNanos;

	private volatile long guardedUntilNanos;

	/** Why the node is guarded: what happened to it, and when ({@link #guardSince}). */
	private volatile GuardCause guardCause;

	private volatile long guardSince;

	/** What the ACL user may not do of what locking needs, or {@code null}. */
	private volatile String denied;

	private volatile long deniedCheckedAt;

	/** Told whenever whether the node counts may have changed. */
	private final Runnable changed;

	private volatile String marker;

	/**
	 * The least fencing token this node may hand out, in the node's clock's microseconds
	 * as the acquire script's floor argument: see {@link RestartDecision}. Empty until
	 * checked.
	 */
	private volatile String floor = "";

	private static final SecureRandom MARKER_IDS = new SecureRandom();

	private final ServerIdentities identities;

	/** The {@code run_id} the server reported on the last check, or {@code null}. */
	private volatile String runId;

	/** The node listed first that is the same server, or {@code null}. */
	private volatile String sameServerAs;

	private final boolean acceptEviction;

	/** Why the server may evict lock keys, as of the last check, or {@code null}. */
	private volatile String evicts;

	/**
	 * Creates the trust of one node.
	 * @param node the node, for messages
	 * @param guard the registry's restart guard
	 * @param resources where to schedule the note that the node counts again
	 * @param connection the node's current connection, or {@code null}
	 * @param generations the generations of the node's lock connection
	 * @param identities the servers of the fleet, for duplicates
	 * @param acceptEviction whether a server that may evict keys still counts
	 * @param changed told whenever whether the node counts may have changed
	 */
	NodeTrust(String node, RestartGuard guard, ClientResources resources,
			Supplier<StatefulRedisConnection<String, String>> connection, ConnectionGenerations generations,
			ServerIdentities identities, boolean acceptEviction, Runnable changed) {
		this.changed = changed;
		this.node = node;
		this.guard = guard;
		this.resources = resources;
		this.connection = connection;
		this.generations = generations;
		this.identities = identities;
		this.acceptEviction = acceptEviction;
		identities.register(this);
	}

	String node() {
		return this.node;
	}

	String markerKey() {
		return this.guard.markerKey();
	}

	String runId() {
		return this.runId;
	}

	/**
	 * Records which node listed earlier is the same server, if any; warns when it becomes
	 * one.
	 */
	void sameServerAs(String other) {
		String before = this.sameServerAs;
		this.sameServerAs = other;
		if (other != null && !other.equals(before)) {
			logger.warn("Redlock node " + this.node + " is the same server as " + other + " (one run_id, "
					+ this.runId.substring(0, Math.min(8, this.runId.length()))
					+ "...): it counts toward no quorum, so that one server never counts twice. List each server"
					+ " once in the nodes; the quorum is still a majority of the nodes listed");
		}
	}

	/**
	 * Checks the node again: a script found its marker gone or changed.
	 */
	void dataLost() {
		this.generations.revoke();
		verify();
	}

	/**
	 * Returns why this node must not count toward a quorum now, or {@code null} if it
	 * may: the given generation must be vouched for, and the node not be guarded.
	 */
	NodeFailure untrusted(Generation generation) {
		String refused = this.denied;
		if (refused != null) {
			if (System.nanoTime() - this.deniedCheckedAt > RECHECK_DENIED_NANOS) {
				// the operator may have changed the rules: check again, restart guard and
				// all
				this.deniedCheckedAt = System.nanoTime();
				this.generations.revoke();
				verify();
			}
			return new NodeFailure(this.node, NodeFailure.Kind.NOPERM, refused);
		}
		String twin = this.sameServerAs;
		if (twin != null) {
			return new NodeFailure(this.node, NodeFailure.Kind.DUPLICATE,
					"the same server as " + twin + ", which counts for it");
		}
		String evicting = this.evicts;
		if (evicting != null) {
			return new NodeFailure(this.node, NodeFailure.Kind.EVICTION, evicting);
		}
		if (!this.guard.enabled()) {
			if (!generation.isVouched() && checkDue(generation)) {
				verify(); // which server answers after a reconnect, for duplicates
			}
			return null;
		}
		if (!generation.isVouched()) {
			if (!checkDue(generation)) {
				return new NodeFailure(this.node, NodeFailure.Kind.RESTARTED,
						"its restart check failed (" + this.checkFailure + "); checking again in "
								+ TimeUnit.NANOSECONDS.toSeconds(
										Math.max(0, this.nextCheckNanos - System.nanoTime()) + 999_999_999)
								+ "s");
			}
			verify();
			return new NodeFailure(this.node, NodeFailure.Kind.RESTARTED, "reconnected; checking whether it restarted");
		}
		long now = System.nanoTime();
		long left = this.guardedUntilNanos - now;
		if (left > 0) {
			return new NodeFailure(this.node, NodeFailure.Kind.RESTARTED,
					this.guardCause.describe(now - this.guardSince) + "; counts again in "
							+ TimeUnit.NANOSECONDS.toSeconds(left + 999_999_999) + "s");
		}
		return null;
	}

	/**
	 * Returns when this node will count again, as {@link System#nanoTime()}: now or
	 * earlier when it counts already, {@link Long#MAX_VALUE} when that is not known (not
	 * checked yet, a duplicate, or evicting).
	 */
	long countsFrom() {
		if (ruledOut()) {
			return Long.MAX_VALUE;
		}
		if (!this.guard.enabled()) {
			return Long.MIN_VALUE;
		}
		return this.generations.currentIsVouched() ? this.guardedUntilNanos : Long.MAX_VALUE;
	}

	/**
	 * Returns what keeps this node out of quorums, for a summary, or {@code null}.
	 */
	GuardCause guardCause() {
		return (this.guardedUntilNanos - System.nanoTime() > 0) ? this.guardCause : null;
	}

	/**
	 * What happened to a node that the restart guard keeps out, worded for operators: a
	 * brand-new node is not said to have lost data.
	 */
	public enum GuardCause {

		/** Its uptime is below the guard time. */
		RESTARTED,

		/**
		 * It had no redlock marker key: new, flushed, or restarted without persistence.
		 */
		NEW_OR_FLUSHED,

		/** Its marker key is another than the one this client saw before. */
		MARKER_CHANGED;

		String describe(long agoNanos) {
			String ago = TimeUnit.NANOSECONDS.toSeconds(Math.max(0, agoNanos)) + "s ago";
			return switch (this) {
				case RESTARTED -> "restarted " + ago;
				case NEW_OR_FLUSHED -> "is new or was flushed " + ago
						+ " (it had no redlock marker key: new, flushed, or restarted without persistence)";
				case MARKER_CHANGED -> "lost its data " + ago
						+ " (its redlock marker key is gone or changed: flushed, or restarted without persistence)";
			};
		}

	}

	/**
	 * Returns whether something other than the restart guard keeps this node out, until
	 * the operator acts: a duplicate, a memory policy that evicts, or a permission
	 * refused.
	 */
	private boolean ruledOut() {
		return this.sameServerAs != null || this.evicts != null || this.denied != null;
	}

	/**
	 * Returns whether this node may count toward a quorum by {@code deadline}
	 * ({@link System#nanoTime()}): not a duplicate, not evicting, and, once checked, not
	 * kept out by the guard until after the deadline.
	 */
	boolean mayCountBy(long deadline) {
		if (ruledOut()) {
			return false;
		}
		return !this.guard.enabled() || !this.generations.currentIsVouched() || this.guardedUntilNanos - deadline <= 0;
	}

	/**
	 * Checks whether the node restarted or lost its data, and keeps it out of quorums for
	 * the guard time if so. Runs at most once at a time; the check vouches only for the
	 * connection it ran on.
	 */
	CompletableFuture<Void> verify() {
		StatefulRedisConnection<String, String> current = this.connection.get();
		if (current == null || !this.verifying.compareAndSet(false, true)) {
			return CompletableFuture.completedFuture(null);
		}
		Generation checkedGeneration = this.generations.current();
		String[] marker = { this.guard.markerKey() };
		String candidate = markerId();
		CompletableFuture<Void> check = current.async().info("server").toCompletableFuture().thenCompose((info) -> {
			identified(field(info, "run_id"));
			return current.async().info("memory").toCompletableFuture().thenApply((memory) -> {
				evictionPolicy(memory);
				return info;
			});
		}).thenCompose((info) -> {
			if (!this.guard.enabled()) {
				return CompletableFuture.completedFuture(null);
			}
			long uptimeSeconds = Long.parseLong(field(info, "uptime_in_seconds"));
			return current.async()
				.<List<Object>>eval(Script.MARKER.text(), ScriptOutputType.MULTI, marker, candidate)
				.toCompletableFuture()
				.thenAccept((reply) -> judge(uptimeSeconds, reply));
		});
		CompletableFuture<Void> done = new CompletableFuture<>();
		check.whenComplete((ignored, ex) -> {
			if (ex != null && !NodeErrors.isDenied(ex)) {
				checkFailed(current, checkedGeneration, ex);
				finishVerify(done, checkedGeneration, false);
				return;
			}
			// the check ran, or a permission stopped it: either way, what may this user
			// do?
			Permissions.probe(current.async(), this.guard.markerKey()).whenComplete((detail, probeEx) -> {
				if (detail != null) {
					denied(detail);
				}
				else if (ex != null) {
					denied("in the restart guard's check (" + NodeErrors.message(ex) + ")");
				}
				else {
					permitted();
				}
				finishVerify(done, checkedGeneration, true);
			});
		});
		return done;
	}

	/**
	 * Returns whether a restart check may run now on the connection of
	 * {@code generation}: at once after a reconnect, else only once the back-off after
	 * failed checks has passed, so that commands do not each send one.
	 */
	private boolean checkDue(Generation generation) {
		return this.failedChecks == 0 || this.failedGeneration != generation
				|| System.nanoTime() - this.nextCheckNanos >= 0;
	}

	/**
	 * Notes a restart check that failed for a reason other than a permission: said at
	 * WARN on the first failure of a connection that is up (a node that is down is
	 * reported as such), and tried again on its own after a delay that doubles with each
	 * failure, up to {@link #RECHECK_FAILED_MAX_NANOS}.
	 */
	private void checkFailed(StatefulRedisConnection<String, String> checked, Generation generation, Throwable ex) {
		int failures = (this.failedGeneration == generation) ? this.failedChecks + 1 : 1;
		long delay = Math.min(RECHECK_FAILED_MAX_NANOS, RECHECK_FAILED_NANOS << Math.min(failures - 1, 5));
		this.checkFailure = NodeErrors.message(ex);
		this.failedGeneration = generation;
		this.nextCheckNanos = System.nanoTime() + delay;
		this.failedChecks = failures;
		if (failures == 1 && checked.isOpen()) {
			logger.warn("Could not check whether redlock node " + this.node + " restarted (" + this.checkFailure
					+ "): it counts toward no quorum until a check succeeds; checking again in "
					+ TimeUnit.NANOSECONDS.toSeconds(delay) + "s, then less often, up to every "
					+ TimeUnit.NANOSECONDS.toSeconds(RECHECK_FAILED_MAX_NANOS) + "s");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Could not check redlock node " + this.node + " for a restart", ex);
		}
		try {
			this.resources.eventExecutorGroup().schedule(() -> {
				if (this.failedChecks == failures && this.failedGeneration == generation && generation.stillCurrent()) {
					verify();
				}
			}, delay, TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException rejected) {
			// the resources are shutting down with the registry
		}
	}

	private void finishVerify(CompletableFuture<Void> done, Generation checkedGeneration, boolean checked) {
		if (checked) {
			// vouches for that connection only: after a drop, the next one is checked
			this.generations.vouch(checkedGeneration);
			if (this.failedChecks > 0) {
				this.failedChecks = 0;
				logger.info("Redlock node " + this.node + " passed its restart check after it had failed ("
						+ this.checkFailure + ")");
			}
		}
		this.verifying.set(false);
		this.changed.run();
		done.complete(null);
	}

	/**
	 * Notes that a script was refused a permission: the node counts toward no quorum from
	 * now, and a check finds out which command or key it was.
	 * @return the failure to report for this reply
	 */
	NodeFailure scriptDenied(Script script, Throwable ex) {
		if (this.denied == null) {
			this.denied = "the " + script.name()
					+ " script uses a command or key the ACL user may not (checking which: " + NodeErrors.message(ex)
					+ ")";
			this.deniedCheckedAt = System.nanoTime();
			this.generations.revoke();
			verify();
			this.changed.run();
		}
		return new NodeFailure(this.node, NodeFailure.Kind.NOPERM, this.denied);
	}

	private void denied(String detail) {
		this.deniedCheckedAt = System.nanoTime();
		String before = this.denied;
		this.denied = detail;
		if (!detail.equals(before)) {
			logger.warn("Redlock node " + this.node + " is not usable: NOPERM " + detail
					+ ". It counts toward no quorum until the rules allow it (checked again every "
					+ TimeUnit.NANOSECONDS.toSeconds(RECHECK_DENIED_NANOS) + "s)");
		}
	}

	private void permitted() {
		if (this.denied != null) {
			this.denied = null;
			logger.info("Redlock node " + this.node + ": the ACL user may now use everything locking needs");
		}
	}

	/**
	 * Reads whether the server can evict keys that carry a TTL: only with a memory limit
	 * and a policy other than {@code noeviction}.
	 */
	private void evictionPolicy(String memory) {
		long maxmemory = Long.parseLong(field(memory, "maxmemory"));
		String policy = field(memory, "maxmemory_policy");
		String problem = null;
		if (!this.acceptEviction && maxmemory > 0 && !"noeviction".equals(policy)) {
			problem = "maxmemory-policy " + policy + " with maxmemory " + maxmemory
					+ " can evict lock keys and fencing counters; set maxmemory-policy noeviction on lock nodes,"
					+ " or set accept-eviction if you accept the risk";
		}
		String before = this.evicts;
		this.evicts = problem;
		if (problem != null && !problem.equals(before)) {
			logger.warn("Redlock node " + this.node + " counts toward no quorum: " + problem);
		}
	}

	private void identified(String runId) {
		if (!runId.equals(this.runId)) {
			this.runId = runId;
			this.identities.changed();
		}
	}

	/**
	 * Acts on the {@link RestartDecision} of one check: guards the node if it says so,
	 * and keeps the floor and the marker for the next scripts and checks.
	 */
	private void judge(long uptimeSeconds, List<Object> reply) {
		long now = System.nanoTime();
		String current = (String) reply.get(0);
		long nodeMicros = TimeUnit.SECONDS.toMicros(Long.parseLong((String) reply.get(1)))
				+ Long.parseLong((String) reply.get(2));
		boolean created = ((Long) reply.get(3)) == 1;
		String known = this.marker;
		if (logger.isDebugEnabled()) {
			logger.debug("Checked " + this.node + " at " + now + ": uptime " + uptimeSeconds + "s, marker " + current
					+ (created ? " (created now)" : "") + ", known " + known);
		}
		RestartDecision decision = RestartDecision.judge(now, uptimeSeconds, current, created, known, nodeMicros,
				this.guard.guardNanos());
		if (decision.cause() != null) {
			guard(decision.sinceNanos(), decision.cause());
		}
		this.floor = String.valueOf(decision.floorMicros());
		this.marker = current;
	}

	/**
	 * Returns a fresh id for a marker this client may create: 12 random bytes, 16
	 * characters, where a UUID took 36. The acquire script sends the whole marker each
	 * time; its creation time follows the id, so two markers never collide in practice.
	 */
	private static String markerId() {
		byte[] bytes = new byte[12];
		MARKER_IDS.nextBytes(bytes);
		return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
	}

	/**
	 * Returns the marker this client last saw on the node, which the acquire script
	 * checks; empty when the guard is off.
	 */
	String marker() {
		String known = this.marker;
		return (this.guard.enabled() && known != null) ? known : "";
	}

	/**
	 * Returns the least token the node may hand out ({@link RestartDecision}), which the
	 * acquire script lifts a lower counter to; sent with the {@link #marker()} only.
	 */
	String floor() {
		return this.floor;
	}

	private void guard(long since, GuardCause cause) {
		long untilNanos = since + this.guard.guardNanos();
		if (untilNanos <= this.guardedUntilNanos) {
			return;
		}
		this.guardCause = cause;
		this.guardSince = since;
		this.guardedUntilNanos = untilNanos;
		String reason = cause.describe(System.nanoTime() - since);
		if (logger.isDebugEnabled()) {
			logger.debug("Guarding " + this.node + " until " + untilNanos + " (now " + System.nanoTime() + ")");
		}
		long delay = untilNanos - System.nanoTime();
		logger.warn("Redlock node " + this.node + " " + reason + ": it counts toward no quorum for the next "
				+ TimeUnit.NANOSECONDS.toSeconds(delay + 999_999_999)
				+ "s, until every lock it may have forgotten has expired");
		this.resources.eventExecutorGroup().schedule(() -> {
			if (this.guardedUntilNanos == untilNanos) {
				logger.info("Redlock node " + this.node + " counts toward quorums again");
				this.changed.run();
			}
		}, delay, TimeUnit.NANOSECONDS);
	}

	private static String field(String info, String name) {
		// at the start of a line: the index in "\n" + info is the field's index in info
		int start = ("\n" + info).indexOf("\n" + name + ":");
		if (start < 0) {
			throw new IllegalStateException("INFO has no " + name);
		}
		int end = info.indexOf('\r', start);
		return info.substring(start + name.length() + 1, (end < 0) ? info.length() : end).trim();
	}

	/**
	 * Returns whether this node counts toward quorums now.
	 */
	boolean isTrusted() {
		if (ruledOut()) {
			return false;
		}
		return !this.guard.enabled()
				|| (this.generations.currentIsVouched() && System.nanoTime() >= this.guardedUntilNanos);
	}

}
