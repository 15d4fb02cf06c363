package io.github.redlock.engine.quorum;

import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

import io.github.redlock.engine.node.NodeTrust;
import io.github.redlock.engine.node.QuorumMember;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Says, once per change, what the fleet as a whole can do: a node going down or coming
 * back, with how many nodes are usable and how many more the quorum tolerates, and the
 * registry becoming unable to lock at all (and why, and until when if the restart guard
 * is the cause), or able again. Lettuce's own lines repeat every few seconds while a node
 * is down; these come once.
 *
 * @author redlock contributors
 */
public final class FleetAvailability {

	private static final Log logger = LogFactory.getLog(FleetAvailability.class);

	/**
	 * Always with seconds: {@code LocalTime.toString()} leaves out ":00", which made the
	 * message read "until about 12:22" one time in sixty.
	 */
	private static final DateTimeFormatter CLOCK_TIME = DateTimeFormatter.ofPattern("HH:mm:ss");

	private final List<QuorumMember> nodes;

	private final Quorum quorum;

	private final boolean[] up;

	private boolean canLock = true;

	private boolean started;

	FleetAvailability(List<QuorumMember> nodes, Quorum quorum) {
		this.nodes = nodes;
		this.quorum = quorum;
		this.up = new boolean[nodes.size()];
	}

	/**
	 * Starts telling, once every node has been tried: says at once if the registry cannot
	 * lock.
	 */
	synchronized void start() {
		if (this.started) {
			return;
		}
		this.started = true;
		for (int i = 0; i < this.up.length; i++) {
			this.up[i] = this.nodes.get(i).isUp();
		}
		this.canLock = true;
		changed();
	}

	/**
	 * Looks again after a node's connection or trust may have changed. Each node is read
	 * once, into one snapshot that every count of the messages comes from: a node that
	 * drops while they are written is counted in the next look, never twice in this one.
	 */
	synchronized void changed() {
		if (!this.started) {
			return;
		}
		boolean[] upNow = new boolean[this.nodes.size()];
		int usable = 0;
		for (int i = 0; i < upNow.length; i++) {
			QuorumMember node = this.nodes.get(i);
			upNow[i] = node.isUp();
			if (upNow[i] && node.isTrusted()) {
				usable++;
			}
		}
		for (int i = 0; i < this.up.length; i++) {
			if (upNow[i] == this.up[i]) {
				continue;
			}
			this.up[i] = upNow[i];
			QuorumMember node = this.nodes.get(i);
			if (upNow[i]) {
				logger.info("Redlock node " + node + " is reachable again: " + usable + " of " + this.nodes.size()
						+ " nodes usable");
			}
			else {
				logger.warn("Redlock node " + node + " is down (disconnected; reconnecting): " + tolerance(usable));
			}
		}
		boolean can = this.quorum.reachedBy(usable);
		if (can == this.canLock) {
			return;
		}
		this.canLock = can;
		if (can) {
			logger.info("Redlock can lock again: " + usable + " of " + this.nodes.size() + " nodes usable, "
					+ this.quorum.majority() + " needed");
		}
		else {
			logger.warn(unavailable(upNow, usable));
		}
	}

	private String tolerance(int usable) {
		String counts = usable + " of " + this.nodes.size() + " nodes usable";
		int spare = usable - this.quorum.majority();
		return (spare >= 0) ? counts + ", the quorum of " + this.quorum.majority() + " tolerates " + spare + " more"
				: counts + ", fewer than the quorum of " + this.quorum.majority() + ": no lock can be acquired";
	}

	/**
	 * Says that no lock can be acquired, why, and until when if only the restart guard
	 * stands in the way, from the snapshot of which nodes are up and how many are usable.
	 */
	String unavailable(boolean[] upNow, int usable) {
		long now = System.nanoTime();
		int guarded = 0;
		int newOrFlushed = 0;
		int down = 0;
		int silent = 0;
		for (int i = 0; i < upNow.length; i++) {
			QuorumMember node = this.nodes.get(i);
			if (!upNow[i]) {
				down++;
				continue;
			}
			if (node.isSilent()) {
				silent++;
			}
			NodeTrust.GuardCause cause = node.guardCause();
			if (cause != null) {
				guarded++;
				if (cause == NodeTrust.GuardCause.NEW_OR_FLUSHED) {
					newOrFlushed++;
				}
			}
		}
		long quorumFrom = this.quorum.countsFrom(this.nodes);
		StringBuilder message = new StringBuilder("Redlock cannot lock at all: ").append(usable)
			.append(" of ")
			.append(this.nodes.size())
			.append(" nodes usable, ")
			.append(this.quorum.majority())
			.append(" needed");
		if (quorumFrom != Long.MAX_VALUE && quorumFrom - now > 0) {
			message.append("; locking is unavailable until about ")
				.append(CLOCK_TIME.format(LocalTime.now().plusNanos(quorumFrom - now)))
				.append(", when the restart guard lets enough nodes back in");
		}
		if (guarded > 0) {
			message.append(". ").append(guarded).append((guarded == 1) ? " node is" : " nodes are");
			message.append((newOrFlushed == guarded) ? " new or flushed" : " restarted, new or flushed");
			message.append((guarded == 1) ? " and counts" : " and count");
			message.append(" toward no quorum until the maximum TTL has passed (see redlock.restart-guard)");
		}
		if (down > 0) {
			message.append(". ").append(down).append((down == 1) ? " node is" : " nodes are");
			message.append(" down or unreachable");
		}
		if (silent > 0) {
			message.append(". ").append(silent).append((silent == 1) ? " node is" : " nodes are");
			message.append(" silent (timed out again and again; probed until it answers)");
		}
		return message.append(".").toString();
	}

}
