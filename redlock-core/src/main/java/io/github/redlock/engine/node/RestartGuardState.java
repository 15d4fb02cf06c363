package io.github.redlock.engine.node;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redlock.NodeFailure;
import io.github.redlock.engine.node.NodeTrust.GuardCause;
import io.lettuce.core.resource.ClientResources;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What the restart guard knows of one node from its trust's checks: the marker this
 * client last saw there, which the acquire scripts check; the floor of the tokens the
 * node may hand out; and until when the guard keeps the node out, and why. What a check
 * means is {@link RestartDecision}'s to decide; this class acts on it. It logs under
 * {@link NodeTrust}'s category, where operators look for why a node does not count.
 * <p>
 * <b>Invariants.</b> The time a node is guarded until only moves later: a check that
 * finds a guard ending sooner leaves the one in force. The marker and the floor are those
 * of the latest check that read the marker. When a guard ends, the node's trust is told
 * that whether the node counts has changed.
 *
 * @author redlock contributors
 */
final class RestartGuardState {

	private static final Log logger = LogFactory.getLog(NodeTrust.class);

	private static final SecureRandom MARKER_IDS = new SecureRandom();

	private final String node;

	private final RestartGuard guard;

	private final ClientResources resources;

	/** Told when a guard ends. */
	private final Runnable changed;

	private volatile @Nullable String marker;

	/**
	 * The least fencing token this node may hand out, in the node's clock's microseconds
	 * as the acquire script's floor argument: see {@link RestartDecision}. Empty until
	 * checked.
	 */
	private volatile String floor = "";

	private volatile long guardedUntilNanos;

	/** Why the node is guarded: what happened to it, and when ({@link #guardSince}). */
	private volatile @Nullable GuardCause guardCause;

	private volatile long guardSince;

	/** The member's markers per slot, for a cluster master; {@code null} for a node. */
	private final @Nullable SlotMarkers slotMarkers;

	/** The slots a cluster master owned at its last check, in order; none before. */
	private volatile int[] owned = new int[0];

	RestartGuardState(String node, RestartGuard guard, ClientResources resources, Runnable changed,
			@Nullable SlotMarkers slotMarkers) {
		this.node = node;
		this.guard = guard;
		this.resources = resources;
		this.changed = changed;
		this.slotMarkers = slotMarkers;
	}

	boolean perSlot() {
		return this.slotMarkers != null;
	}

	boolean enabled() {
		return this.guard.enabled();
	}

	/**
	 * Returns the key of the marker a check reads: the node's; on a cluster master, the
	 * marker of the first slot it owned at its last check (a key it can be asked about).
	 */
	String markerKey() {
		if (this.slotMarkers == null) {
			return this.guard.markerKey();
		}
		int[] slots = this.owned;
		return this.slotMarkers.keys().slotMarkerKey((slots.length > 0) ? slots[0] : 0);
	}

	/**
	 * Returns the member's markers, for a cluster master's check; {@code null} for a
	 * node.
	 */
	@Nullable SlotMarkers slotMarkers() {
		return this.slotMarkers;
	}

	/**
	 * Returns until when the guard keeps the node out, as {@link System#nanoTime()}.
	 */
	long guardedUntilNanos() {
		return this.guardedUntilNanos;
	}

	/**
	 * Returns what keeps this node out of quorums now, or {@code null}.
	 */
	@Nullable GuardCause guardCause() {
		return (this.guardedUntilNanos - System.nanoTime() > 0) ? this.guardCause : null;
	}

	/**
	 * Returns why the guard keeps the node out now, or {@code null} if it does not.
	 */
	// guard() sets the cause before the time it guards until
	@SuppressWarnings("NullAway")
	@Nullable NodeFailure guarded() {
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
	 * Returns the marker this client last saw on the node, which the acquire script
	 * checks; empty when the guard is off.
	 */
	String marker(int slot) {
		if (!this.guard.enabled()) {
			return "";
		}
		String known = (this.slotMarkers == null) ? this.marker
				: (Arrays.binarySearch(this.owned, slot) >= 0) ? this.slotMarkers.known(slot) : null;
		return (known != null) ? known : "";
	}

	/**
	 * Returns the least token the node may hand out ({@link RestartDecision}), which the
	 * acquire script lifts a lower counter to; sent with the {@link #marker()} only.
	 */
	String floor() {
		return this.floor;
	}

	/**
	 * Returns a fresh id for a marker this client may create: 12 random bytes, 16
	 * characters, where a UUID took 36. The acquire script sends the whole marker each
	 * time; its creation time follows the id, so two markers never collide in practice.
	 */
	static String markerId() {
		byte[] bytes = new byte[12];
		MARKER_IDS.nextBytes(bytes);
		return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
	}

	/**
	 * Acts on the {@link RestartDecision} of one check from the node's uptime and the
	 * marker script's reply: guards the node if it says so, and keeps the floor and the
	 * marker for the next scripts and checks.
	 */
	void judge(long uptimeSeconds, List<Object> reply) {
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
	 * Acts on a cluster master's check ({@link SlotCheck}) as {@link #judge} does on a
	 * node's, slot by slot: the master is guarded until the latest time any of its slots
	 * needs (a failover moves all of a master's slots, a restart or a flush touches all
	 * of them), and its floor is the highest of its slots'.
	 */
	// only a cluster master's check comes here, with slot markers; worst is kept with a
	// cause
	@SuppressWarnings("NullAway")
	void judgeSlots(long uptimeSeconds, SlotCheck.Result result) {
		long now = System.nanoTime();
		long until = Long.MIN_VALUE;
		RestartDecision worst = null;
		long floor = Long.MIN_VALUE;
		for (int i = 0; i < result.slots().length; i++) {
			int slot = result.slots()[i];
			RestartDecision decision = RestartDecision.judge(now, uptimeSeconds, result.markers()[i],
					result.created()[i], this.slotMarkers.known(slot), result.nodeMicros(), this.guard.guardNanos());
			if (decision.cause() != null && (worst == null || decision.sinceNanos() - until > 0)) {
				worst = decision;
				until = decision.sinceNanos();
			}
			floor = Math.max(floor, decision.floorMicros());
			this.slotMarkers.saw(slot, result.markers()[i]);
		}
		if (!result.failedOver().isEmpty()) {
			logger.warn("Redlock cluster master " + this.node + " took over " + result.failedOver().size()
					+ " slot(s) by a failover (a replica promoted, or a history changed): they may have lost"
					+ " acknowledged writes, so their markers were replaced");
		}
		if (worst != null) {
			guard(worst.sinceNanos(), worst.cause());
		}
		this.floor = String.valueOf(floor);
		this.owned = result.slots();
	}

	/**
	 * Notes the slots a cluster master owns, when no marker is checked (the guard is
	 * off): its health check reads a key of one of them.
	 */
	void owns(int[] slots) {
		this.owned = slots;
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
		this.changed.run();
		this.resources.eventExecutorGroup().schedule(() -> {
			if (this.guardedUntilNanos == untilNanos) {
				logger.info("Redlock node " + this.node + " counts toward quorums again");
				this.changed.run();
			}
		}, delay, TimeUnit.NANOSECONDS);
	}

}
