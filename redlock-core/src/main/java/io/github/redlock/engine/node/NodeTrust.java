package io.github.redlock.engine.node;

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
import org.jspecify.annotations.Nullable;

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
 * These are one check, hence one class runs it: it reads one {@code INFO} reply and the
 * marker script on one connection, and decides one answer (whether the node counts). What
 * the check found is kept by its parts: {@link RestartGuardState} (the marker, the floor
 * and the guard, as {@link RestartDecision} decides them), {@link NodeExclusions} (what
 * keeps the node out until the operator acts: a permission, a duplicate, eviction) and
 * {@link CheckRetries} (the back-off after a failed check).
 * <p>
 * <b>Invariants.</b> The node counts only while the current connection generation is
 * vouched for ({@link ConnectionGenerations}, which owns the rule that a reply counts
 * only on that generation) and the node is neither guarded, refused, a duplicate nor
 * evicting. Only a check that ran to its end vouches, for the generation it ran on; a
 * lost marker, a refused permission or its periodic re-check revoke that. One check runs
 * at a time.
 *
 * @author redlock contributors
 */
public final class NodeTrust {

	private final String node;

	private final Supplier<@Nullable StatefulRedisConnection<String, String>> connection;

	private final ConnectionGenerations generations;

	private final AtomicBoolean verifying = new AtomicBoolean();

	/** Told whenever whether the node counts may have changed. */
	private final Runnable changed;

	private final RestartGuardState restarts;

	private final NodeExclusions exclusions;

	private final CheckRetries retries;

	/** The node's clock as measured, or {@code null} when clocks are not watched. */
	private final @Nullable NodeClock clock;

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
	 * @param slotMarkers the member's markers per slot, for a master of a cluster member;
	 * {@code null} for a single node
	 */
	NodeTrust(String node, RestartGuard guard, ClientResources resources,
			Supplier<@Nullable StatefulRedisConnection<String, String>> connection, ConnectionGenerations generations,
			ServerIdentities identities, boolean acceptEviction, Runnable changed, @Nullable SlotMarkers slotMarkers,
			@Nullable FleetClocks clocks) {
		this.changed = changed;
		this.node = node;
		this.connection = connection;
		this.generations = generations;
		this.restarts = new RestartGuardState(node, guard, resources, changed, slotMarkers);
		this.exclusions = new NodeExclusions(node, identities, acceptEviction);
		this.retries = new CheckRetries(node, resources);
		this.clock = (clocks != null)
				? new NodeClock(node, clocks, guard.enabled() ? guard.guardNanos() : 0, resources, changed) : null;
	}

	/**
	 * Starts reading the node's clock on its connection, if clocks are watched.
	 */
	void watchClock() {
		if (this.clock != null) {
			this.clock.start(this.connection);
		}
	}

	/**
	 * Stops reading the node's clock for good.
	 */
	void closeClock() {
		if (this.clock != null) {
			this.clock.close();
		}
	}

	String node() {
		return this.node;
	}

	String markerKey() {
		return this.restarts.markerKey();
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
	@Nullable NodeFailure untrusted(Generation generation) {
		NodeFailure excluded = this.exclusions.failure();
		if (excluded != null) {
			if (this.exclusions.deniedRecheckDue()) {
				// the operator may have changed the rules: check again, restart guard and
				// all
				this.generations.revoke();
				verify();
			}
			return excluded;
		}
		if (!this.restarts.enabled()) {
			if (!generation.isVouched() && this.retries.due(generation)) {
				verify(); // which server answers after a reconnect, for duplicates
			}
			return null;
		}
		if (!generation.isVouched()) {
			if (!this.retries.due(generation)) {
				return new NodeFailure(this.node, NodeFailure.Kind.RESTARTED, this.retries.describe());
			}
			verify();
			return new NodeFailure(this.node, NodeFailure.Kind.RESTARTED, "reconnected; checking whether it restarted");
		}
		NodeFailure guarded = this.restarts.guarded();
		return (guarded != null || this.clock == null) ? guarded : this.clock.failure();
	}

	/**
	 * Returns when this node will count again, as {@link System#nanoTime()}: now or
	 * earlier when it counts already, {@link Long#MAX_VALUE} when that is not known (not
	 * checked yet, a duplicate, or evicting).
	 */
	long countsFrom() {
		if (this.exclusions.ruledOut()) {
			return Long.MAX_VALUE;
		}
		if (!this.restarts.enabled()) {
			return Long.MIN_VALUE;
		}
		if (!this.generations.currentIsVouched()) {
			return Long.MAX_VALUE;
		}
		long guarded = this.restarts.guardedUntilNanos();
		return (this.clock != null && this.clock.outUntilNanos() - guarded > 0) ? this.clock.outUntilNanos() : guarded;
	}

	/**
	 * Returns whether the node's clock keeps it out of quorums now ({@link NodeClock});
	 * asks no node.
	 */
	boolean clockKeepsOut() {
		return this.clock != null && this.clock.keepsOut();
	}

	/**
	 * Returns what keeps this node out of quorums, for a summary, or {@code null}.
	 */
	@Nullable GuardCause guardCause() {
		return this.restarts.guardCause();
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
				// when the loss happened is not known: only when this client found it
				case MARKER_CHANGED -> "lost its data, found " + ago
						+ " (its redlock marker key is gone or changed: flushed, or restarted without persistence)";
			};
		}

	}

	/**
	 * Returns whether this node may count toward a quorum by {@code deadline}
	 * ({@link System#nanoTime()}): not a duplicate, not evicting, and, once checked, not
	 * kept out by the guard until after the deadline.
	 */
	boolean mayCountBy(long deadline) {
		if (this.exclusions.ruledOut()) {
			return false;
		}
		return !this.restarts.enabled() || !this.generations.currentIsVouched()
				|| (this.restarts.guardedUntilNanos() - deadline <= 0
						&& (this.clock == null || this.clock.outUntilNanos() - deadline <= 0));
	}

	/**
	 * Checks whether the node restarted or lost its data, and keeps it out of quorums for
	 * the guard time if so. Runs at most once at a time; the check vouches only for the
	 * connection it ran on.
	 */
	@SuppressWarnings("NullAway") // perSlot() says that there are slot markers
	CompletableFuture<Void> verify() {
		StatefulRedisConnection<String, String> current = this.connection.get();
		if (current == null || !this.verifying.compareAndSet(false, true)) {
			return CompletableFuture.completedFuture(null);
		}
		Generation checkedGeneration = this.generations.current();
		String[] marker = { this.restarts.markerKey() };
		String candidate = RestartGuardState.markerId();
		CompletableFuture<Void> check = current.async().info("server").toCompletableFuture().thenCompose((info) -> {
			this.exclusions.identified(field(info, "run_id"));
			return current.async().info("memory").toCompletableFuture().thenApply((memory) -> {
				this.exclusions.evictionPolicy(Long.parseLong(field(memory, "maxmemory")),
						field(memory, "maxmemory_policy"));
				return info;
			});
		}).thenCompose((info) -> {
			if (!this.restarts.enabled()) {
				// a cluster master's health check still reads a key of a slot it owns
				return this.restarts.perSlot() ? SlotCheck.owned(current.async()).thenAccept(this.restarts::owns)
						: CompletableFuture.completedFuture(null);
			}
			long uptimeSeconds = Long.parseLong(field(info, "uptime_in_seconds"));
			if (this.restarts.perSlot()) {
				return SlotCheck.run(current.async(), this.restarts.slotMarkers().keys())
					.thenAccept((result) -> this.restarts.judgeSlots(uptimeSeconds, result));
			}
			return current.async()
				.<List<Object>>eval(Script.MARKER.text(), ScriptOutputType.MULTI, marker, candidate)
				.toCompletableFuture()
				.thenAccept((reply) -> this.restarts.judge(uptimeSeconds, reply));
		});
		CompletableFuture<Void> done = new CompletableFuture<>();
		check.whenComplete((ignored, ex) -> {
			if (ex != null && !NodeErrors.isDenied(ex) && !NodeErrors.isNoScripting(ex)) {
				this.retries.failed(current, checkedGeneration, ex, this::verify);
				finishVerify(done, checkedGeneration, false);
				return;
			}
			// the check ran, or a permission stopped it: either way, what may this user
			// do?
			Permissions.probe(current.async(), this.restarts.markerKey()).whenComplete((detail, probeEx) -> {
				if (detail != null) {
					this.exclusions.denied(detail);
				}
				else if (ex != null && NodeErrors.isNoScripting(ex)) {
					this.exclusions.denied(Permissions.NO_SCRIPTS + NodeErrors.message(ex));
				}
				else if (ex != null) {
					this.exclusions.denied("in the restart guard's check (" + NodeErrors.message(ex) + ")");
				}
				else {
					this.exclusions.permitted();
				}
				finishVerify(done, checkedGeneration, true);
			});
		});
		return done;
	}

	private void finishVerify(CompletableFuture<Void> done, Generation checkedGeneration, boolean checked) {
		if (checked) {
			// vouches for that connection only: after a drop, the next one is checked
			this.generations.vouch(checkedGeneration);
			this.retries.succeeded();
			if (this.clock != null) {
				this.clock.read(this.connection.get());
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
		if (this.exclusions.scriptDenied(script, ex)) {
			this.generations.revoke();
			verify();
			this.changed.run();
		}
		return this.exclusions.denial();
	}

	/**
	 * Returns the marker this client last saw on the node, which the acquire script
	 * checks; empty when the guard is off.
	 */
	String marker(int slot) {
		return this.restarts.marker(slot);
	}

	/**
	 * Returns the least token the node may hand out ({@link RestartDecision}), which the
	 * acquire script lifts a lower counter to; sent with the {@link #marker()} only.
	 */
	String floor() {
		return this.restarts.floor();
	}

	/**
	 * Returns one field of an {@code INFO} reply.
	 */
	static String field(String info, String name) {
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
		if (this.exclusions.ruledOut()) {
			return false;
		}
		return !this.restarts.enabled()
				|| (this.generations.currentIsVouched() && System.nanoTime() >= this.restarts.guardedUntilNanos()
						&& (this.clock == null || this.clock.failure() == null));
	}

}
