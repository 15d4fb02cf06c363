package io.github.redlock.engine.kinds;

import java.util.function.Consumer;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.quorum.QuorumCall;
import org.jspecify.annotations.Nullable;

/**
 * An attempt of an {@link AcquisitionLoop} on its way, and each step of it as the nodes
 * answer: its send to each node, its decision, its fencing round. One object per attempt,
 * where a lambda per step would allocate on every acquisition; each step hands back to
 * the loop, which owns what the steps decide.
 *
 * @author redlock contributors
 */
final class SentAttempt extends Attempt implements QuorumCall.Send, Consumer<QuorumCall>, FencingRound.Fenced {

	private final AcquisitionLoop loop;

	private final long start;

	/**
	 * The call it goes after on each node ({@link AcquisitionLoop#sendAfter}), or
	 * {@code null}.
	 */
	private final @Nullable QuorumCall before;

	/** The call once decided; read only by the steps after it. */
	private @Nullable QuorumCall decided;

	SentAttempt(AcquisitionLoop loop, int number, String value, int slot, String[] args, long start,
			@Nullable QuorumCall before) {
		super(number, value, slot, args);
		this.loop = loop;
		this.start = start;
		this.before = before;
	}

	@Override
	public void send(QuorumMember node, int index, NodeClient.ReplyHandler replies) {
		if (this.before == null) {
			this.loop.send(node, this, index, replies);
		}
		else {
			this.before.afterReply(index, (answered) -> this.loop.sendAfter(this, node, index, replies));
		}
	}

	@Override
	public void accept(QuorumCall call) {
		this.decided = call;
		if (call.succeeded()) {
			FencingRound.decide(this.loop.engine, call, this);
		}
		else {
			this.loop.failed(call, this, null, null);
		}
	}

	@Override
	public void raise(QuorumMember node, String token, int index, NodeClient.ReplyHandler replies) {
		this.loop.raise(node, this, LockValues.secret(value()), token, index, replies);
	}

	@Override
	// the fencing round starts in accept(), which set the decided call
	@SuppressWarnings("NullAway")
	public void fenced(long token) {
		this.loop.acquired(this.decided, this, this.start, token);
	}

	@Override
	// the fencing round starts in accept(), which set the decided call
	@SuppressWarnings("NullAway")
	public void unaligned() {
		this.loop.failed(this.decided, this, AttemptOutcomes.UNALIGNED, LockAcquisitionException.Reason.NO_QUORUM);
	}

}
