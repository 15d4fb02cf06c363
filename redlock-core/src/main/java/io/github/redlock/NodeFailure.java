package io.github.redlock;

import org.jspecify.annotations.Nullable;

/**
 * Why one node did not agree to a lock operation.
 *
 * @param node the node, as a URI without credentials
 * @param kind the kind of failure
 * @param detail a short explanation, or {@code null}
 * @author redlock contributors
 */
public record NodeFailure(String node, Kind kind, @Nullable String detail) {

	/**
	 * Kinds of node failure.
	 */
	public enum Kind {

		/** The node did not answer within the per-node timeout. */
		TIMEOUT("timed out"),

		/** The node could not be reached: connection refused, closed or not yet made. */
		REFUSED("refused"),

		/** Another owner holds the lock on this node. */
		HELD("already held"),

		/**
		 * The node restarted or lost its data recently: it counts toward no quorum until
		 * the maximum TTL has passed, so that locks it forgot have expired elsewhere.
		 */
		RESTARTED("recently restarted"),

		/**
		 * The node is a server listed before under another name (the same
		 * {@code run_id}): it counts toward no quorum, so that one server never counts
		 * twice.
		 */
		DUPLICATE("listed twice"),

		/**
		 * The node's memory policy can evict keys that carry a TTL, lock keys and fencing
		 * counters among them: it counts toward no quorum unless the operator accepts
		 * that.
		 */
		EVICTION("may evict locks"),

		/**
		 * The ACL user may not run a command locking needs, or touch the lock keys: the
		 * node counts toward no quorum until its rules allow them.
		 */
		NOPERM("not usable: NOPERM"),

		/**
		 * The node refused the credentials ({@code WRONGPASS}) or wants some
		 * ({@code NOAUTH}): it counts toward no quorum until they are fixed.
		 */
		AUTH("not usable: authentication failed"),

		/**
		 * The node cannot run Lua scripts, which every lock command is: {@code EVAL} or
		 * {@code EVALSHA} is unknown to it (renamed away, or a server built without Lua)
		 * or refused to the ACL user. It counts toward no quorum until they run.
		 */
		SCRIPTING("not usable: cannot run Lua scripts"),

		/**
		 * The node's clock jumped, or is far off the other nodes' clocks: it counts
		 * toward no quorum until its clock has been steady for the maximum TTL, since a
		 * node keeps lock keys by its own clock.
		 */
		CLOCK("clock unsteady"),

		/** The node answered with an error. */
		ERROR("error");

		private final String description;

		Kind(String description) {
			this.description = description;
		}

		/**
		 * Returns a short description for messages.
		 * @return the description
		 */
		public String description() {
			return this.description;
		}

	}

	/**
	 * Describes the failure without naming the node, for a display that names it already.
	 * @return such as {@code refused (Connection refused)}
	 */
	public String describe() {
		return this.kind.description() + ((this.detail != null) ? " (" + this.detail + ")" : "");
	}

	@Override
	public String toString() {
		return this.node + " " + describe();
	}

}
