package io.github.redlock.engine.kinds;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

import io.github.redlock.engine.lease.EngineContext;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;

/**
 * The fencing token of an attempt a quorum agreed to: the highest counter among the
 * agreeing nodes, and, when fewer than a quorum reported it, the second round that raises
 * the others to it. Every kind takes its token here, so that the claim argued in
 * {@link Acquisition} (a quorum holds counters at least the token when a lease is
 * granted) rests on one piece of code; each kind sends its own raise script.
 *
 * @author redlock contributors
 */
final class FencingRound {

	/**
	 * Sends a kind's raise script to one node: raise its counter to {@code token} while
	 * the attempt's value is still held there, answering 1.
	 */
	@FunctionalInterface
	interface Raise {

		void send(NodeClient node, String token, int index, NodeClient.ReplyHandler replies);

	}

	private FencingRound() {
	}

	/**
	 * Decides the token of an attempt that a quorum agreed to.
	 * @param call the attempt, decided with a quorum
	 * @param raise sends the second round to one node
	 * @param fenced told the token once a quorum holds counters at least it
	 * @param unaligned run when the second round could not reach a quorum: the attempt
	 * failed
	 */
	static void decide(EngineContext engine, QuorumCall call, Raise raise, LongConsumer fenced, Runnable unaligned) {
		NodeFleet fleet = engine.fleet();
		long[] tokens = call.agreedValues();
		long highest = 0;
		for (long token : tokens) {
			highest = Math.max(highest, token);
		}
		int atHighest = 0;
		List<NodeClient> behind = new ArrayList<>();
		int[] agreedNodes = call.agreedNodes();
		for (int i = 0; i < tokens.length; i++) {
			if (tokens[i] == highest) {
				atHighest++;
			}
			else {
				behind.add(fleet.node(agreedNodes[i]));
			}
		}
		int missing = fleet.quorum() - atHighest;
		engine.countAcquisition(missing > 0);
		if (missing <= 0) {
			fenced.accept(highest);
			return;
		}
		long token = highest;
		String tokenText = String.valueOf(token);
		QuorumCall round = QuorumCall.start(behind, missing, (reply) -> reply == 1,
				(node, index, replies) -> raise.send(node, tokenText, index, replies));
		round.decision().thenAccept((decided) -> {
			if (decided.succeeded()) {
				fenced.accept(token);
			}
			else {
				unaligned.run();
			}
		});
	}

}
