package io.github.redlock.engine.kinds;

import java.util.ArrayList;
import java.util.List;

import io.github.redlock.engine.RedlockSettings;
import io.github.redlock.engine.lease.EngineContext;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.NodeTrust;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;

/**
 * The fencing token of an attempt a quorum agreed to: the highest counter among the
 * agreeing nodes, and, when fewer than a quorum reported it, the second round that raises
 * the others to it. Every kind takes its token here, so that the invariant below rests on
 * one piece of code; each kind sends its own raise script. The argument is written for
 * the exclusive lock ({@link ExclusiveAcquisition}); {@link ReadWriteLocks} and
 * {@link PermitSemaphore} say how it carries over to theirs.
 *
 * <h2>Why tokens strictly increase</h2> Each node keeps, beside the lock key, a counter
 * for the key. Every attempt carries a <b>start</b>, the same for all its nodes: the time
 * the nodes' clocks agree on, in microseconds, as the client reckons it (the median of
 * the nodes' clocks it measured; its own wall clock until it measured one), and above
 * every start the registry sent before ({@code FencingStarts}). The acquire script, in
 * the same atomic step as the {@code SET NX}, sets the counter to the largest of the
 * start, the node's floor (with the restart guard, below) and the counter plus one; the
 * token is the highest counter among the agreeing quorum. A counter only ever moves up
 * there, and the nodes of a new key all start it from the same value, so the common case
 * stays one round trip. If fewer than a quorum reported that highest value, a second
 * round raises the others to it (only while the lock is still ours there), and the lock
 * counts as held only once a quorum has done so. So:
 * <p>
 * <b>Invariant.</b> When a lease with token {@code T} is granted, a quorum of nodes holds
 * counters {@code >= T}.
 * <p>
 * <b>Claim.</b> A lease granted later for the same key has a token {@code > T}. Its
 * quorum shares at least one node {@code n} with the quorum of the invariant (two
 * majorities intersect, also when a minority is partitioned away, since partitioned nodes
 * are in neither). If {@code n} still has its counter, the later script sets it to at
 * least that value plus one, {@code > T}, whatever start the later attempt sent, and the
 * later token, the maximum of its quorum, is {@code > T}. This case needs no clock.
 * <p>
 * <b>Withdrawn attempts.</b> A failed attempt's withdrawal may set a node's counter back
 * by one, from the token {@code U} the attempt got there to {@code U - 1}
 * ({@link Script#WITHDRAW}): in one script, only while the attempt's value is still on
 * the node and the counter still equals {@code U}. Then no acquisition has run on that
 * node since the attempt's (the {@code SET NX} fails while the value is there; a raise
 * runs only where the raising lease's value is), so the counter goes back to at least
 * what it was before the attempt ({@code U} is at least that value plus one). No lease
 * was granted with {@code U}, the attempt having failed, and no counter falls below a
 * value it held before the attempt: the invariant still holds for every lease granted
 * before, and the claim reads counters only when the later script runs. The client asks
 * for this only where the attempt counted above every node that refused it
 * ({@link QuorumCall#tokenAboveHolders}); that choice is about cost, not safety.
 * <p>
 * <b>When {@code n} lost its counter, or came back with an old one.</b> It restarted
 * empty, was flushed, came back from an older snapshot (an RDB save or an AOF fsynced
 * every second, after a crash: the counter is there, but below {@code T}), or the counter
 * expired ({@code fencingRetention} after its last write, each acquisition and extension
 * writing it). Then the argument rests on clocks. Every counter value began as a start or
 * a floor and has grown by one per acquisition since, far slower than clocks grow (a
 * million a second). Let {@code s} bound how far a node's clock, and a client's reckoning
 * of the nodes' agreed time, is off true time. A start sent at true time {@code t} is at
 * most {@code t + s}; a floor is used only once its node counts again, at or after the
 * time it names less {@code s}; so a token handed out at time {@code t} is at most
 * {@code t + s}. Two things lift what {@code n} came back with:
 * <ul>
 * <li><b>The start (always).</b> The later attempt, at time {@code t'}, sends a start of
 * at least {@code t' - s}, and {@code n}'s counter becomes at least that: above {@code T}
 * when {@code t' - t > 2s}, that is, when {@code n} counts again more than {@code 2s}
 * after {@code T} was handed out. An expired counter had {@code fencingRetention} without
 * writes, so {@code t' - t > fencingRetention}, which is above {@code 2s} when
 * {@code fencingRetention > 2s} (the builder refuses one under two seconds; the default
 * is a day).</li>
 * <li><b>The floor (restart guard on).</b> A node that restarted or lost its data sits
 * out of every quorum until the guard time ({@code maxTtl} plus drift) has passed since,
 * on this client's monotonic clock. Its floor ({@link NodeTrust#floor()}) is its own
 * clock reading of that moment: its start (from its uptime) or its marker's creation,
 * plus the guard time. The acquire script lifts a counter below the floor to the floor,
 * so whatever the node came back with, its next token is at least
 * {@code t_back + guard - s} in true time, while {@code T} was handed out before
 * {@code t_back} and is at most {@code t_back + s}: the later token is above {@code T}
 * when {@code guard > 2s}, whatever the clients' reckoning. {@link RedlockSettings}
 * refuses a {@code maxTtl} under one second with the guard on.</li>
 * </ul>
 * So tokens strictly increase under these assumptions:
 * <ol>
 * <li>no node's clock is off true time by more than half of {@code maxTtl} (restarts,
 * with the guard) or half of {@code fencingRetention} (expiry), and no clock is set back
 * by more than that; for expiry, and without the guard, the same holds for the median of
 * the nodes' clocks as each client reckons it (from {@code TIME} replies, off by at most
 * half their round trip and the drift since), and for a client's own wall clock until it
 * read a node's;
 * <li>one key is acquired fewer than a million times a second on average since its
 * counter began;
 * <li>with the restart guard off, a node that restarted empty or stale counts again more
 * than {@code 2s} after the last token it held was handed out (a restart from disk takes
 * longer than clocks are apart): without the guard, exclusion itself does not survive a
 * quorum that forgot.
 * </ol>
 * Two leases are never both held at once, and a later one has a larger token, so no two
 * holders ever share a token.
 *
 * @author redlock contributors
 */
final class FencingRound {

	/** The attempt whose token is decided. */
	interface Fenced {

		/**
		 * Sends the kind's raise script to one node: raise its counter to {@code token}
		 * while the attempt's value is still held there, answering 1.
		 */
		void raise(QuorumMember node, String token, int index, NodeClient.ReplyHandler replies);

		/** Told the token once a quorum holds counters at least it. */
		void fenced(long token);

		/** The second round could not reach a quorum: the attempt failed. */
		void unaligned();

	}

	private FencingRound() {
	}

	/**
	 * Decides the token of an attempt that a quorum agreed to.
	 * @param call the attempt, decided with a quorum
	 * @param attempt the attempt: sends the second round, and is told how it ended
	 */
	static void decide(EngineContext engine, QuorumCall call, Fenced attempt) {
		NodeFleet fleet = engine.fleet();
		long[] tokens = call.agreedValues();
		long highest = 0;
		for (long token : tokens) {
			highest = Math.max(highest, token);
		}
		int atHighest = 0;
		for (long token : tokens) {
			atHighest += (token == highest) ? 1 : 0;
		}
		int missing = fleet.quorum() - atHighest;
		engine.countAcquisition(missing > 0);
		if (missing <= 0) {
			attempt.fenced(highest);
			return;
		}
		List<QuorumMember> behind = new ArrayList<>();
		int[] agreedNodes = call.agreedNodes();
		for (int i = 0; i < tokens.length; i++) {
			if (tokens[i] != highest) {
				behind.add(fleet.node(agreedNodes[i]));
			}
		}
		long token = highest;
		String tokenText = String.valueOf(token);
		QuorumCall round = QuorumCall.start(behind, missing, (reply) -> reply == 1,
				(node, index, replies) -> attempt.raise(node, tokenText, index, replies));
		round.decision().thenAccept((decided) -> {
			if (decided.succeeded()) {
				attempt.fenced(token);
			}
			else {
				attempt.unaligned();
			}
		});
	}

}
