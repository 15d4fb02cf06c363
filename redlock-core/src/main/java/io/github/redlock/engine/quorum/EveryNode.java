package io.github.redlock.engine.quorum;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.redlock.RedlockException;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.node.TurnProtocol;
import org.jspecify.annotations.Nullable;

/**
 * Asking every node of the fleet at once and gathering each node's answer, all within one
 * call bound (inspection, node checks), and queueing a waiter everywhere, fire and forget
 * but for one answer.
 *
 * @author redlock contributors
 */
final class EveryNode {

	private final List<QuorumMember> nodes;

	private final Quorum quorum;

	private final long callBoundNanos;

	EveryNode(List<QuorumMember> nodes, Quorum quorum, long callBoundNanos) {
		this.nodes = nodes;
		this.quorum = quorum;
		this.callBoundNanos = callBoundNanos;
	}

	/**
	 * Asks every node at once.
	 * @param call the call to make on the node at an index
	 * @return one future per node, in configuration order
	 */
	<T> List<CompletableFuture<T>> toEach(NodeCall<T> call) {
		List<CompletableFuture<T>> answers = new ArrayList<>(this.nodes.size());
		for (int i = 0; i < this.nodes.size(); i++) {
			answers.add(call.call(i, this.nodes.get(i)));
		}
		return answers;
	}

	/**
	 * Asks every node at once and waits for the answers, all within one call bound; a
	 * node that has not answered by then is described by {@code noAnswer}.
	 * @param doing what the caller does, for the message if interrupted
	 * @return the answers, in configuration order
	 */
	<T> List<T> ask(Function<QuorumMember, CompletableFuture<T>> question, Function<QuorumMember, T> noAnswer,
			String doing) {
		List<CompletableFuture<T>> answers = toEach((index, node) -> question.apply(node));
		long deadline = System.nanoTime() + this.callBoundNanos;
		List<T> result = new ArrayList<>(answers.size());
		for (int i = 0; i < answers.size(); i++) {
			try {
				result.add(answers.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new RedlockException("Interrupted while " + doing, ex);
			}
			catch (ExecutionException | TimeoutException ex) {
				result.add(noAnswer.apply(this.nodes.get(i)));
			}
		}
		return result;
	}

	/**
	 * Queues a line for a key on every node but the silent ones: see
	 * {@link NodeFleet#queueWaiter}.
	 */
	void queueWaiter(String[] keys, String[] args, @Nullable Runnable free) {
		AtomicInteger freeCount = new AtomicInteger();
		NodeClient.ReplyHandler replies = (index, reply) -> {
			if (free != null && reply.answered() && reply.value() == TurnProtocol.QUEUE_FREE
					&& this.quorum.reachedAt(freeCount.incrementAndGet())) {
				free.run();
			}
		};
		for (int i = 0; i < this.nodes.size(); i++) {
			QuorumMember node = this.nodes.get(i);
			if (!node.isSilent()) {
				// nothing but deletions goes to a silent node (NodeSilence)
				node.eval(Script.QUEUE_WAITER, keys, args, i, replies);
			}
		}
	}

	/**
	 * A call to one node of the fleet.
	 *
	 * @param <T> what the node answers
	 */
	@FunctionalInterface
	interface NodeCall<T> {

		CompletableFuture<T> call(int index, QuorumMember node);

	}

}
