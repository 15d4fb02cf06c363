package io.github.redlock.engine.quorum;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.LongPredicate;

import io.github.redlock.NodeFailure;
import io.github.redlock.engine.node.HeldReply;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.NodeReply;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.node.Script;
import org.jspecify.annotations.Nullable;

/**
 * One script sent to every node at once, decided as soon as the outcome is known: when a
 * quorum has agreed, or when so many have failed that a quorum no longer can. The slower
 * nodes' replies still arrive and are kept, for messages.
 *
 * @author redlock contributors
 */
public final class QuorumCall implements NodeClient.ReplyHandler {

	private final List<QuorumMember> nodes;

	private final int quorum;

	private final LongPredicate agrees;

	private final long timeoutNanos;

	private final @Nullable NodeReply[] replies;

	/**
	 * What to do on a node once it has replied (a release waits for its acquisition's
	 * reply on that node), by index; made on the first such wish.
	 */
	private IntConsumer @Nullable [] afterReply;

	private final CompletableFuture<QuorumCall> decision = new CompletableFuture<>();

	private final CompletableFuture<QuorumCall> completion = new CompletableFuture<>();

	private int agreed;

	private int failed;

	private boolean succeeded;

	private long @Nullable [] agreedValues;

	private int @Nullable [] agreedNodes;

	private QuorumCall(List<QuorumMember> nodes, int quorum, LongPredicate agrees, long timeoutNanos) {
		this.nodes = nodes;
		this.quorum = quorum;
		this.agrees = agrees;
		this.timeoutNanos = timeoutNanos;
		this.replies = new NodeReply[nodes.size()];
	}

	/**
	 * Sends a call to every node.
	 * @param nodes the nodes
	 * @param quorum how many must agree
	 * @param agrees which integer replies count as agreement
	 * @param timeoutNanos how long to wait for each node ({@link #timeoutNanos()})
	 * @param send the call to make on one node
	 * @return the call, whose {@link #decision()} completes when the outcome is known
	 */
	public static QuorumCall start(List<QuorumMember> nodes, int quorum, LongPredicate agrees, long timeoutNanos,
			Send send) {
		QuorumCall quorumCall = new QuorumCall(nodes, quorum, agrees, timeoutNanos);
		for (int i = 0; i < nodes.size(); i++) {
			send.send(nodes.get(i), i, quorumCall);
		}
		return quorumCall;
	}

	/**
	 * Returns how long this call waits for each node: the one its TTL allows
	 * ({@link Validity#callTimeoutNanos}).
	 */
	@Override
	public long timeoutNanos() {
		return this.timeoutNanos;
	}

	@Override
	public void reply(int index, NodeReply reply) {
		boolean decide = false;
		boolean complete;
		IntConsumer after = null;
		synchronized (this) {
			this.replies[index] = shared(reply);
			if (reply.answered() && this.agrees.test(reply.value())) {
				this.agreed++;
			}
			else {
				this.failed++;
			}
			if (!this.decision.isDone() && this.agreedValues == null) {
				if (this.agreed >= this.quorum) {
					this.succeeded = true;
					snapshotAgreement();
					decide = true;
				}
				else if (this.failed > this.nodes.size() - this.quorum) {
					snapshotAgreement();
					decide = true;
				}
			}
			complete = this.agreed + this.failed == this.nodes.size();
			if (this.afterReply != null) {
				after = this.afterReply[index];
				this.afterReply[index] = null;
			}
		}
		if (decide) {
			this.decision.complete(this);
		}
		if (after != null) {
			after.accept(index);
		}
		if (complete) {
			this.completion.complete(this);
		}
	}

	/**
	 * Returns an equal reply kept already, if there is one: the nodes of a new key agree
	 * on its token, and a held lease keeps its acquisition's replies (a release goes to
	 * each node after its reply), so one object serves them all.
	 */
	private NodeReply shared(NodeReply reply) {
		for (NodeReply kept : this.replies) {
			if (reply.equals(kept)) {
				return kept;
			}
		}
		return reply;
	}

	private void snapshotAgreement() {
		this.agreedValues = new long[this.agreed];
		this.agreedNodes = new int[this.agreed];
		int next = 0;
		for (int i = 0; i < this.replies.length; i++) {
			NodeReply reply = this.replies[i];
			if (reply != null && reply.answered() && this.agrees.test(reply.value())) {
				this.agreedValues[next] = reply.value();
				this.agreedNodes[next] = i;
				next++;
			}
		}
	}

	/**
	 * Completes when a quorum agreed or can no longer agree.
	 */
	public CompletableFuture<QuorumCall> decision() {
		return this.decision;
	}

	/**
	 * Runs {@code action} with {@code index} once the node at that index has replied or
	 * timed out (at once if it has), after any reload of the script that a NOSCRIPT reply
	 * caused: a command sent to that node then reaches it after this call's script.
	 * Actions given for one node run in the order given.
	 */
	public void afterReply(int index, IntConsumer action) {
		synchronized (this) {
			if (this.replies[index] == null) {
				if (this.afterReply == null) {
					this.afterReply = new IntConsumer[this.replies.length];
				}
				IntConsumer earlier = this.afterReply[index];
				this.afterReply[index] = (earlier == null) ? action : earlier.andThen(action);
				return;
			}
		}
		action.accept(index);
	}

	/**
	 * Returns whether the node at {@code index} answered the acquire script "held by
	 * another owner" (a negative reply: see {@link Script#ACQUIRE}), so that the call's
	 * value is not on it.
	 */
	synchronized boolean answeredHeld(int index) {
		NodeReply reply = this.replies[index];
		return reply != null && reply.answered() && reply.value() < 0;
	}

	/**
	 * Returns the fencing token that the node at {@code index} gave this acquisition, if
	 * it is above the counter of every node that answered "held by another owner" so far,
	 * and at least one did; else {@code 0}. Such a token counted an attempt made while
	 * another owner held the lock on those nodes: withdrawing it may undo it
	 * ({@link Script#WITHDRAW}), or this node's counter stays ahead of the holder's nodes
	 * and the next holder needs a second round to raise them.
	 */
	synchronized long tokenAboveHolders(int index) {
		NodeReply mine = this.replies[index];
		if (mine == null || !mine.answered() || !this.agrees.test(mine.value())) {
			return 0;
		}
		long token = mine.value();
		boolean held = false;
		for (NodeReply reply : this.replies) {
			if (reply != null && reply.answered() && reply.value() < 0) {
				long counter = HeldReply.counterLow(reply.value());
				if (counter < 0 || !HeldReply.above(token, counter)) {
					return 0;
				}
				held = true;
			}
		}
		return held ? token : 0;
	}

	/**
	 * Returns whether the node at {@code index} was never sent the call, being silent
	 * ({@link NodeReply#unsent()}), so that the call's value is not on it.
	 */
	synchronized boolean unsent(int index) {
		NodeReply reply = this.replies[index];
		return reply != null && reply.unsent();
	}

	/**
	 * Returns the shortest remaining time to live, in milliseconds, among the replies so
	 * far that answered the acquire script "held by another owner", or {@code -1} if none
	 * did.
	 */
	public synchronized long leastHeldMillis() {
		long least = -1;
		for (NodeReply reply : this.replies) {
			if (reply != null && reply.answered() && reply.value() < 0) {
				long left = HeldReply.millis(reply.value());
				least = (least < 0) ? left : Math.min(least, left);
			}
		}
		return least;
	}

	/**
	 * Completes when every node has replied or timed out.
	 */
	public CompletableFuture<QuorumCall> completion() {
		return this.completion;
	}

	public synchronized boolean succeeded() {
		return this.succeeded;
	}

	/**
	 * Returns the agreeing replies' values as they stood at the decision.
	 */
	@SuppressWarnings("NullAway") // set by the decision, before which nobody asks
	public synchronized long[] agreedValues() {
		return this.agreedValues;
	}

	/**
	 * Returns the indexes of the agreeing nodes as they stood at the decision.
	 */
	@SuppressWarnings("NullAway") // set by the decision, before which nobody asks
	public synchronized int[] agreedNodes() {
		return this.agreedNodes;
	}

	public synchronized int agreedCount() {
		return this.agreed;
	}

	/**
	 * Counts the replies so far that answered with a value matching the predicate.
	 */
	public synchronized int countAnswered(LongPredicate predicate) {
		int count = 0;
		for (NodeReply reply : this.replies) {
			if (reply != null && reply.answered() && predicate.test(reply.value())) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Returns the values of the replies so far that answered with a value matching the
	 * predicate, in node order.
	 */
	public synchronized long[] answeredValues(LongPredicate predicate) {
		long[] values = new long[countAnswered(predicate)];
		int next = 0;
		for (NodeReply reply : this.replies) {
			if (reply != null && reply.answered() && predicate.test(reply.value())) {
				values[next++] = reply.value();
			}
		}
		return values;
	}

	/**
	 * Returns each node's reply so far, in node order: {@code null} for a node not heard
	 * from yet.
	 */
	public synchronized NodeReply[] repliesSoFar() {
		return this.replies.clone();
	}

	/**
	 * Counts the nodes that have not answered yet: none once the call is
	 * {@link #completion() complete}, since a node that does not answer in time fails.
	 */
	public synchronized int pending() {
		int count = 0;
		for (NodeReply reply : this.replies) {
			if (reply == null) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Returns whether a node's reply so far is a failure of the given kind.
	 */
	public synchronized boolean anyFailed(NodeFailure.Kind kind) {
		for (NodeReply reply : this.replies) {
			NodeFailure failure = (reply != null) ? reply.failure() : null;
			if (failure != null && failure.kind() == kind) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Describes every node that answered without agreeing, or failed, so far. Nodes not
	 * heard from yet are left out: they may be healthy and merely slower than the
	 * failures that decided the call ({@link #pending()} counts them).
	 * @param describe how to describe a disagreeing integer reply of a node
	 */
	public synchronized List<NodeFailure> failures(Function<Long, String> describe) {
		List<NodeFailure> failures = new ArrayList<>();
		for (int i = 0; i < this.replies.length; i++) {
			NodeReply reply = this.replies[i];
			if (reply == null) {
				continue;
			}
			if (!reply.answered()) {
				failures.add(reply.failure());
			}
			else if (!this.agrees.test(reply.value())) {
				failures.add(new NodeFailure(this.nodes.get(i).toString(), NodeFailure.Kind.HELD,
						describe.apply(reply.value())));
			}
		}
		return failures;
	}

	/**
	 * Makes the call to one node of a {@link QuorumCall}.
	 */
	@FunctionalInterface
	public interface Send {

		/**
		 * Sends the call to {@code node}, whose reply goes to {@code replies} with
		 * {@code index}.
		 */
		void send(QuorumMember node, int index, NodeClient.ReplyHandler replies);

	}

}
