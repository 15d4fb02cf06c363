package io.github.redlock.engine.kinds;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.engine.lease.EngineContext;
import io.github.redlock.engine.lease.LeaseOps;
import io.github.redlock.engine.lease.RedlockLease;
import io.github.redlock.engine.node.HeldReply;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import io.github.redlock.engine.waiting.LineHold;
import io.github.redlock.engine.waiting.Waiting;
import org.jspecify.annotations.Nullable;

/**
 * The exclusive lock as a kind of {@link AcquisitionLoop}: {@link Script#ACQUIRE} takes
 * the key where it is free, {@link Script#RAISE_FENCE} is its second fencing round,
 * {@link Script#WITHDRAW} withdraws a failed attempt, and its lease extends with
 * {@link Script#EXTEND} and releases with {@link Script#RELEASE}.
 * <p>
 * What only this kind does: its withdrawal sets back a node's counter where the attempt
 * counted above every node that refused it ({@link QuorumCall#tokenAboveHolders}, read
 * from the holders' replies, {@link HeldReply}), which {@link FencingRound} argues safe;
 * and it takes turns with other processes through its release ({@link ExclusiveOps}): the
 * release names the next line queued on the nodes, or keeps the turn for this registry's
 * own waiters ({@link Waiting#keepsTurn}), whose first attempt then goes to each node
 * after that release ({@link #goesAfterOwnRelease}).
 *
 * @author redlock contributors
 */
final class ExclusiveAcquisition extends AcquisitionLoop {

	/** The scripts this kind sends, with {@link Script#QUEUE_WAITER} for its line. */
	static final List<Script> SCRIPTS = List.of(Script.ACQUIRE, Script.RAISE_FENCE, Script.RELEASE, Script.QUEUE_WAITER,
			Script.WITHDRAW, Script.EXTEND);

	private final String[] keys;

	/** The lock and its fencing counter, without the node marker. */
	private final String[] lockAndFence;

	private ExclusiveAcquisition(EngineContext engine, String key, Duration ttl, Duration waitTime) {
		super(engine, engine.waiting(), true, key, ttl, waitTime);
		this.keys = engine.keys().nodeKeys(key);
		this.lockAndFence = Arrays.copyOf(this.keys, 2);
	}

	/**
	 * Starts acquiring the exclusive lock, once the nodes have been connected to.
	 * @return the lease, or a {@link io.github.redlock.LockAcquisitionException} once the
	 * wait time is spent; cancelling it abandons the acquisition
	 */
	static CompletableFuture<RedlockLease> start(EngineContext engine, String key, Duration ttl, Duration waitTime) {
		return new ExclusiveAcquisition(engine, key, ttl, waitTime).start();
	}

	/**
	 * Sends the acquire script to one node: with the node marker's key and value only
	 * when the restart guard knows a marker to check, else two keys and four arguments.
	 */
	@Override
	String[] args(String value, int slot) {
		return new String[] { value, this.ttlMillis, this.engine.retentionMillis(), this.fleet.fencingStart() };
	}

	@Override
	void send(QuorumMember node, Attempt attempt, int index, NodeClient.ReplyHandler replies) {
		String marker = node.marker(this.keySlot);
		if (marker.isEmpty()) {
			node.eval(Script.ACQUIRE, this.lockAndFence, attempt.args(), index, replies);
		}
		else {
			node.eval(Script.ACQUIRE, this.keys, attempt.argsWithMarker(marker, node.floor(this.keySlot)), index,
					replies);
		}
	}

	@Override
	void raise(QuorumMember node, Attempt attempt, String secret, String token, int index,
			NodeClient.ReplyHandler replies) {
		node.eval(Script.RAISE_FENCE, this.lockAndFence, new String[] { secret, token, this.engine.retentionMillis() },
				index, replies);
	}

	@Override
	void withdraw(QuorumCall call, Attempt attempt) {
		this.fleet.withdrawEverywhere(this.lockAndFence, LockValues.secret(attempt.value()), call,
				this.engine.retentionMillis());
	}

	@Override
	// counted in its line: the loop always gives an exclusive lease a hold
	@SuppressWarnings("NullAway")
	RedlockLease lease(Attempt attempt, long token, long start, long validUntil, QuorumCall call,
			@Nullable LineHold hold) {
		return new RedlockLease(this.engine, this.key, attempt.value(), token, start, validUntil, call,
				new ExclusiveOps(this.engine, this.key, this.lockAndFence, hold));
	}

	@Override
	long heldMillis(long reply) {
		return HeldReply.millis(reply);
	}

	@Override
	String describeRefusal(Attempt attempt, long reply) {
		return "by another owner for " + HeldReply.millis(reply) + "ms more";
	}

	/**
	 * Queues on the lock's key: a release looks at the queue and names the next line.
	 */
	@Override
	String[] queueKeys() {
		return new String[] { this.keys[0], this.engine.keys().waitersKey(this.key) };
	}

	/**
	 * A queueing that finds the key free always wakes the head: nothing of another kind
	 * (a writer's mark) can refuse an exclusive attempt on a free key again and again.
	 */
	@Override
	boolean wakesOnEveryFreeQueueing() {
		return true;
	}

	@Override
	boolean goesAfterOwnRelease() {
		return true;
	}

	/**
	 * How an exclusive lease acts: it extends with {@link Script#EXTEND}, and its release
	 * ({@link Script#RELEASE}, with the arguments {@link Waiting} gives) hands the turn
	 * to the next line queued on the nodes or keeps it for this registry's waiters, whom
	 * its end concerns: it ends its {@code hold} in the key's line as it ended.
	 */
	private record ExclusiveOps(EngineContext engine, String key, String[] lockAndFence,
			LineHold hold) implements LeaseOps {

		@Override
		public void extend(QuorumMember node, String[] args, int index, NodeClient.ReplyHandler replies) {
			node.eval(Script.EXTEND, this.lockAndFence, args, index, replies);
		}

		@Override
		public CompletableFuture<Boolean> release(NodeFleet fleet, String secret, long token, QuorumCall acquisition,
				NodeFleet.@Nullable AfterQuorum afterQuorum, @Nullable String warnKey) {
			Waiting waiting = this.engine.waiting();
			// without afterQuorum, the lease was lost: its line heard of its end then
			String[] args = (afterQuorum != null) ? waiting.releaseArgs(this.key, secret, token, acquisition)
					: waiting.lostReleaseArgs(this.key, secret, token);
			String[] releaseKeys = { this.lockAndFence[0], this.engine.keys().waitersKey(this.key) };
			if (afterQuorum == null || !waiting.keepsTurn(args)) {
				return fleet.releaseEverywhere(releaseKeys, args, acquisition, afterQuorum, warnKey);
			}
			// this registry keeps the turn: its next waiter tries at once, its attempt
			// going to each node after this release (one connection per node)
			CompletableFuture<Boolean> release = fleet.releaseEverywhere(releaseKeys, args, acquisition, null, warnKey);
			this.hold.releasedKeepingTurn();
			return release;
		}

		@Override
		public void ended() {
			this.hold.ended();
		}

		@Override
		public void released(boolean queuedBehind) {
			this.hold.released(queuedBehind);
		}

	}

}
