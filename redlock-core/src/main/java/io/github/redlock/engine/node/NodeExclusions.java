package io.github.redlock.engine.node;

import java.util.concurrent.TimeUnit;

import io.github.redlock.NodeFailure;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What keeps one node out of every quorum until the operator acts, as its trust's checks
 * found it: a permission the ACL user lacks, a server listed twice under two names
 * ({@link ServerIdentities}), or a memory policy that may evict lock keys. It logs under
 * {@link NodeTrust}'s category, where operators look for why a node does not count.
 * <p>
 * <b>Invariants.</b> A node ruled out here counts toward no quorum, whatever its restart
 * guard says. Each cause is set and cleared only by what a check (or a script refused a
 * permission) saw, and warned of when it appears or changes; a refused permission is due
 * to be checked again at most every {@link #RECHECK_DENIED_NANOS}.
 *
 * @author redlock contributors
 */
final class NodeExclusions {

	private static final Log logger = LogFactory.getLog(NodeTrust.class);

	static final long RECHECK_DENIED_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final String node;

	private final ServerIdentities identities;

	private final boolean acceptEviction;

	/** What the ACL user may not do of what locking needs, or {@code null}. */
	private volatile @Nullable String denied;

	private volatile long deniedCheckedAt;

	/** The {@code run_id} the server reported on the last check, or {@code null}. */
	private volatile @Nullable String runId;

	/** The node listed first that is the same server, or {@code null}. */
	private volatile @Nullable String sameServerAs;

	/** Why the server may evict lock keys, as of the last check, or {@code null}. */
	private volatile @Nullable String evicts;

	NodeExclusions(String node, ServerIdentities identities, boolean acceptEviction) {
		this.node = node;
		this.identities = identities;
		this.acceptEviction = acceptEviction;
		identities.register(this);
	}

	String node() {
		return this.node;
	}

	@Nullable String runId() {
		return this.runId;
	}

	/**
	 * Returns why the node counts toward no quorum until the operator acts, or
	 * {@code null}.
	 */
	@Nullable NodeFailure failure() {
		String refused = this.denied;
		if (refused != null) {
			return new NodeFailure(this.node, kind(refused), refused);
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
		return null;
	}

	/**
	 * Returns the failure to report for a reply refused a permission.
	 */
	NodeFailure denial() {
		String refused = this.denied;
		return new NodeFailure(this.node, kind(refused), refused);
	}

	/** Returns the kind of a refusal: no scripts at all, or a permission. */
	private static NodeFailure.Kind kind(@Nullable String refused) {
		return (refused != null && refused.startsWith(Permissions.NO_SCRIPTS)) ? NodeFailure.Kind.SCRIPTING
				: NodeFailure.Kind.NOPERM;
	}

	/**
	 * Returns whether something keeps this node out until the operator acts: a duplicate,
	 * a memory policy that evicts, or a permission refused.
	 */
	boolean ruledOut() {
		return this.sameServerAs != null || this.evicts != null || this.denied != null;
	}

	/**
	 * Returns whether a refused permission is due to be checked again (the operator may
	 * have changed the rules), and if so notes that it is being checked now.
	 */
	boolean deniedRecheckDue() {
		if (this.denied != null && System.nanoTime() - this.deniedCheckedAt > RECHECK_DENIED_NANOS) {
			this.deniedCheckedAt = System.nanoTime();
			return true;
		}
		return false;
	}

	/**
	 * Notes that a script was refused a permission, unless one is already noted.
	 * @return whether this is news: the node counts no longer, and a check should find
	 * out which command or key it was
	 */
	boolean scriptDenied(Script script, Throwable ex) {
		if (this.denied != null) {
			return false;
		}
		this.denied = NodeErrors.isNoScripting(ex)
				? Permissions.NO_SCRIPTS + NodeErrors.message(ex) + " (checking which command)"
				: "the " + script.name() + " script uses a command or key the ACL user may not (checking which: "
						+ NodeErrors.message(ex) + ")";
		this.deniedCheckedAt = System.nanoTime();
		return true;
	}

	/**
	 * Notes what a check found the ACL user may not do.
	 */
	void denied(String detail) {
		this.deniedCheckedAt = System.nanoTime();
		String before = this.denied;
		this.denied = detail;
		if (!detail.equals(before)) {
			logger.warn("Redlock node " + this.node + " is " + kind(detail).description() + " " + detail
					+ ". It counts toward no quorum until that changes (checked again every "
					+ TimeUnit.NANOSECONDS.toSeconds(RECHECK_DENIED_NANOS) + "s)");
		}
	}

	/**
	 * Notes that a check found the ACL user may do everything locking needs.
	 */
	void permitted() {
		if (this.denied != null) {
			this.denied = null;
			logger.info("Redlock node " + this.node + ": the ACL user may now use everything locking needs");
		}
	}

	/**
	 * Notes the {@code run_id} a check read, and has the fleet's duplicates worked out
	 * again when it changed.
	 */
	void identified(String runId) {
		if (!runId.equals(this.runId)) {
			this.runId = runId;
			this.identities.changed();
		}
	}

	/**
	 * Records which node listed earlier is the same server, if any; warns when it becomes
	 * one.
	 */
	@SuppressWarnings("NullAway") // a twin is found by this node's run_id: it has one
	void sameServerAs(@Nullable String other) {
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
	 * Notes whether the server can evict keys that carry a TTL: only with a memory limit
	 * and a policy other than {@code noeviction}.
	 */
	void evictionPolicy(long maxmemory, String policy) {
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

}
