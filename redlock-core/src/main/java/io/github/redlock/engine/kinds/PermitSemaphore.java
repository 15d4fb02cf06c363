package io.github.redlock.engine.kinds;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockKeys;
import io.github.redlock.LockSemaphore;
import io.github.redlock.engine.LockObserver;
import io.github.redlock.engine.lease.EngineContext;
import io.github.redlock.engine.lease.LeaseOps;
import io.github.redlock.engine.lease.RedlockLease;
import io.github.redlock.engine.node.KeyLayout;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.NodeReply;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import io.github.redlock.engine.waiting.LineHold;
import io.github.redlock.engine.waiting.ReleaseHints;
import io.github.redlock.engine.waiting.Waiting;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockSemaphore} on the quorum: {@code permits} slots, each an exclusive lock of
 * its own, so that at most one holder per slot, and so at most {@code permits} holders,
 * hold at once.
 *
 * <h2>Why not a count per node</h2> Each node admitting at most {@code permits} entries
 * does not bound the holders on a quorum: with five nodes and two permits, permits held
 * on nodes {1,2,3}, {3,4,5} and {1,2,4} leave no node with more than two, yet three are
 * held. A slot is a lock, and two quorums that hold one slot must share a node that
 * refused the second: so the bound is the exclusive lock's argument, once per slot.
 *
 * <h2>On each node</h2> For a key {@code k} ({@link KeyLayout#permitKeys}):
 * {@code permits:k}, a hash from slot to holder value (for operators: the owner is
 * there), and {@code permit-expiries:k}, a sorted set from slot to its expiry in the
 * node's milliseconds; every script that meets a slot whose expiry is at or before now
 * frees it, so a holder whose process died frees its permit when its TTL ends, as a lock
 * key expires. The fencing counter is the semaphore's own ({@code permit-fence:k}; see
 * {@link KeyLayout#permitKeys} for why not the lock's).
 * <p>
 * An attempt asks every node for one slot ({@link Script#ACQUIRE_PERMIT}), the slot fixed
 * when it starts, so that its withdrawal frees the very slot it asked for on every node
 * (see {@link AcquisitionLoop}'s invariants). A node takes it if it is free there and
 * fewer than {@code permits} slots are live there, and answers the next counter value;
 * else it answers how long the slot (or, when all are taken, the first permit) has left
 * and the first slot free there after the one asked for, in cyclic order. The permit is
 * held when a quorum took the same slot within the validity; a failed attempt frees its
 * slot everywhere and the next attempt asks for the slot that most nodes said was free,
 * at once; the first attempt asks for a random slot, so that contenders rarely collide.
 * Extension and release act on the lease's own slot only, if it still holds this holder's
 * value; a permit that lost its quorum learns it at its next extension and is lost, as
 * any lease. Waiters of one registry stand in one line per key (apart from the locks'
 * lines), and are woken when a permit of this registry ends. A permit released in another
 * process wakes them through a {@link ReleaseHints release hint}: the release publishes
 * its token and slot on the semaphore's channel ({@link KeyLayout#permitChannel},
 * {@link Script#RELEASE_PERMIT}), to which the registry subscribes on every node while
 * the head of the key's line sleeps between attempts and the registry holds fewer of the
 * permits than there are (and a second after), as for the exclusive lock. A failed
 * attempt's withdrawal publishes nothing, and a permit that expires publishes nothing
 * either: without a hint (turned off, or a node that forbids publish/subscribe) the head
 * polls, every retry delay plus jitter, never later than the first permit's expiry.
 *
 * <h2>tryAcquire</h2> A slot guessed once is often taken while others are free, so a
 * {@code tryAcquire} sweeps: from its random first slot onward, cyclically, each attempt
 * asks for the nearest slot that the refusals so far leave possibly free on a quorum
 * ({@code PermitAcquisition#tryNextAtOnce} argues the skip), at once and without waiting
 * in the key's line, until one is granted or the sweep comes back to its first slot: at
 * most {@code permits} attempts, each a slot of its own, a permit counting only when a
 * quorum took that one slot for that attempt's value.
 * <p>
 * Invariants: this class owns the semaphore's bound (at most {@code permits} holders, by
 * one slot per holder on a quorum, argued below) and that a {@code tryAcquire} is empty
 * only when each slot was, when asked for, free on fewer than a quorum of nodes (or the
 * sweep ran out of its time bound, or of nodes that answer): it skips no slot that the
 * refusals leave possibly free on a quorum.
 *
 * <h2>Safety</h2> Two permits held at once on one slot would have quorums that share a
 * node where both slot entries were live at once; the second script to run there saw the
 * first's live entry (it lives its whole TTL from when that node wrote it, past the
 * holder's validity) and refused. A node that forgot its slots (restart, flush, old
 * snapshot) is kept out of every quorum by the restart guard until the maximum TTL has
 * passed since, so that everything it forgot has expired: the exclusive lock's argument,
 * per slot. Tokens come from that counter exactly as every kind's ({@link FencingRound}:
 * maximum over the quorum, a second round raising the others only where the slot is still
 * ours, the floor), so a permit granted after another was granted has a larger token;
 * permits held at once may share a token.
 *
 * <h2>When the permit count changes</h2> The count is the callers', sent with each
 * attempt, not stored: a caller only asks for slots below its own count, and a node
 * refuses a caller while as many permits as that caller's count are live there, slots of
 * any number included. Raising the count from {@code m} to {@code n}: new callers may
 * take up to {@code n} at once, old ones still stop at {@code m}. Lowering it: permits
 * held under the old count keep their slots until released or expired; new callers wait
 * until fewer than the new count are live on a quorum's nodes. In every case, at most the
 * largest count in use hold at once (old and new callers only ever take slots below
 * that).
 *
 * <p>
 * Longer than most classes: a quarter of it is this argument, and the acquisition's slot
 * choice (the random first slot, the free slot the refusals name, the sweep of a
 * {@code tryAcquire}) is one piece with the slot each attempt fixes.
 *
 * @author redlock contributors
 */
public final class PermitSemaphore implements LockSemaphore {

	/** The scripts a permit's acquisition and lease send. */
	static final List<Script> SCRIPTS = List.of(Script.ACQUIRE_PERMIT, Script.EXTEND_PERMIT, Script.RAISE_PERMIT,
			Script.RELEASE_PERMIT);

	/**
	 * The largest permit count: its slots must fit below
	 * {@link Script#PERMIT_HINT_RANGE}.
	 */
	static final int MAX_PERMITS = (int) Script.PERMIT_HINT_RANGE - 1;

	private final Observing observing;

	private final EngineContext engine;

	private final Waiting lines;

	private final String key;

	private final int permits;

	private final String permitsText;

	private final String[] keys;

	private final String[] keysWithMarker;

	/** The channel its releases are published on. */
	private final String channel;

	public PermitSemaphore(Observing observing, EngineContext engine, Waiting lines, String key, int permits) {
		KeyLayout.check(key);
		if (permits < 1 || permits > MAX_PERMITS) {
			throw new IllegalArgumentException("permits must be from 1 to " + MAX_PERMITS + ", was " + permits
					+ ": a semaphore of '" + LockKeys.printable(key) + "' needs at least one permit");
		}
		this.observing = observing;
		this.engine = engine;
		this.lines = lines;
		this.key = key;
		this.permits = permits;
		this.permitsText = String.valueOf(permits);
		this.keys = engine.keys().permitKeys(key);
		this.keysWithMarker = new String[] { this.keys[0], this.keys[1], this.keys[2], engine.keys().markerKeyOf(key) };
		this.channel = engine.keys().permitChannel(key);
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public int permits() {
		return this.permits;
	}

	@Override
	public Lease acquire(Duration ttl, Duration waitTime) {
		return acquire(ttl, waitTime, false);
	}

	@Override
	public Lease acquire(Duration ttl, Duration waitTime, boolean autoExtend) {
		checkAcquisition(ttl, waitTime);
		return this.observing.uninterruptible(this.key, ttl, waitTime, LockObserver.Kind.PERMIT, () -> false,
				() -> acquirePermit(ttl, waitTime, autoExtend));
	}

	private Lease acquirePermit(Duration ttl, Duration waitTime, boolean autoExtend) {
		RedlockLease lease;
		try {
			lease = AcquisitionAwait.await(new PermitAcquisition(ttl, waitTime).start(), this.key,
					this.engine.decisionBoundNanos(waitTime));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockAcquisitionException("No permit of semaphore '" + LockKeys.printable(this.key)
					+ "' was acquired: the thread was interrupted while waiting", this.key, ex);
		}
		if (autoExtend) {
			lease.autoExtend(ttl);
		}
		return lease;
	}

	@Override
	public CompletableFuture<Lease> acquireAsync(Duration ttl, Duration waitTime) {
		return acquireAsync(ttl, waitTime, false);
	}

	@Override
	public CompletableFuture<Lease> acquireAsync(Duration ttl, Duration waitTime, boolean autoExtend) {
		checkAcquisition(ttl, waitTime);
		return this.observing.async(this.key, ttl, waitTime, autoExtend, LockObserver.Kind.PERMIT,
				() -> new PermitAcquisition(ttl, waitTime).start());
	}

	/** The checks of every acquisition: the key was checked when this was made. */
	private void checkAcquisition(Duration ttl, Duration waitTime) {
		this.engine.leases().checkRunning();
		this.engine.checkTtl(ttl);
		EngineContext.checkWaitTime(waitTime);
	}

	@Override
	public Optional<Lease> tryAcquire(Duration ttl) {
		try {
			return Optional.of(acquire(ttl, Duration.ZERO));
		}
		catch (LockAcquisitionException ex) {
			return Optional.empty();
		}
	}

	@Override
	public int availablePermits() {
		this.engine.leases().checkOpen();
		NodeFleet fleet = this.engine.fleet();
		fleet.connect();
		String[] expiries = { this.keys[1] };
		List<List<Object>> answers = fleet.askEveryNode(
				(node) -> node.isTrusted() ? node.evalList(Script.LIVE_PERMITS, expiries)
						: CompletableFuture.failedFuture(new CompletionException("not trusted", null)),
				(node) -> null, "counting the permits of semaphore '" + LockKeys.printable(this.key) + "'");
		int answered = 0;
		Map<Object, Integer> nodesBySlot = new HashMap<>();
		for (List<Object> slots : answers) {
			if (slots == null) {
				continue;
			}
			answered++;
			for (Object slot : slots) {
				nodesBySlot.merge(String.valueOf(slot), 1, Integer::sum);
			}
		}
		if (answered < fleet.quorum()) {
			return 0;
		}
		int majority = answered / 2 + 1;
		long held = nodesBySlot.values().stream().filter((count) -> count >= majority).count();
		return (int) Math.max(0, this.permits - held);
	}

	@Override
	public String toString() {
		return "LockSemaphore[" + LockKeys.printable(this.key) + ", " + this.permits + " permits]";
	}

	/**
	 * One acquisition of a permit: asks for one slot per attempt.
	 */
	private final class PermitAcquisition extends AcquisitionLoop {

		/**
		 * The slot the next attempt asks for, read once as it starts: each attempt's
		 * scripts name its own {@link Attempt#slot}, never this.
		 */
		private volatile int slot;

		/** The first attempt's slot: where a tryAcquire's sweep starts. */
		private final int firstSlot;

		PermitAcquisition(Duration ttl, Duration waitTime) {
			super(PermitSemaphore.this.engine, PermitSemaphore.this.lines, false, PermitSemaphore.this.key, ttl,
					waitTime);
			this.firstSlot = ThreadLocalRandom.current().nextInt(PermitSemaphore.this.permits);
			this.slot = this.firstSlot;
		}

		@Override
		int nextSlot() {
			return this.slot;
		}

		@Override
		String[] args(String value, int slot) {
			return new String[] { value, this.ttlMillis, this.engine.retentionMillis(),
					PermitSemaphore.this.permitsText, String.valueOf(slot), this.fleet.fencingStart() };
		}

		@Override
		void send(QuorumMember node, Attempt attempt, int index, NodeClient.ReplyHandler replies) {
			String marker = node.marker(this.keySlot);
			if (marker.isEmpty()) {
				node.eval(Script.ACQUIRE_PERMIT, PermitSemaphore.this.keys, attempt.args(), index, replies);
			}
			else {
				node.eval(Script.ACQUIRE_PERMIT, PermitSemaphore.this.keysWithMarker,
						attempt.argsWithMarker(marker, node.floor(this.keySlot)), index, replies);
			}
		}

		@Override
		void raise(QuorumMember node, Attempt attempt, String secret, String token, int index,
				NodeClient.ReplyHandler replies) {
			node.eval(Script.RAISE_PERMIT, PermitSemaphore.this.keys,
					new String[] { secret, token, this.engine.retentionMillis(), String.valueOf(attempt.slot()) },
					index, replies);
		}

		@Override
		void withdraw(QuorumCall call, Attempt attempt) {
			this.fleet.undoEverywhere(Script.RELEASE_PERMIT,
					new String[] { PermitSemaphore.this.keys[0], PermitSemaphore.this.keys[1] },
					new String[] { LockValues.secret(attempt.value()), String.valueOf(attempt.slot()) }, call, null,
					null);
		}

		@Override
		RedlockLease lease(Attempt attempt, long token, long start, long validUntil, QuorumCall call,
				@Nullable LineHold hold) {
			String slotText = String.valueOf(attempt.slot());
			String[] slotArg = { slotText };
			// the release publishes this on the semaphore's channel, on every node: the
			// same release heard from a node after the end of this registry's hold of the
			// permit is an echo to its line
			String hint = token + ":" + slotText;
			String[] releaseArgs = { slotText, PermitSemaphore.this.channel, hint };
			LineHold permit = PermitSemaphore.this.lines.permitHeld(this.key, PermitSemaphore.this.permits, hint);
			LeaseOps ops = LeaseOps.scripted(Script.EXTEND_PERMIT, PermitSemaphore.this.keys, Script.RELEASE_PERMIT,
					new String[] { PermitSemaphore.this.keys[0], PermitSemaphore.this.keys[1] }, slotArg, releaseArgs,
					permit::ended);
			return new RedlockLease(this.engine, this.key, attempt.value(), token, start, validUntil, call, ops);
		}

		@Override
		long heldMillis(long reply) {
			return (-reply - 1) / Script.PERMIT_HINT_RANGE;
		}

		@Override
		String describeRefusal(Attempt attempt, long reply) {
			long hint = (-reply - 1) % Script.PERMIT_HINT_RANGE;
			return "permit slot " + attempt.slot() + " or all " + PermitSemaphore.this.permits
					+ " permits taken there, the first for " + heldMillis(reply) + "ms more"
					+ ((hint > 0) ? " (slot " + (hint - 1) + " free there)" : "");
		}

		/**
		 * Moves to the slot that most refusing nodes said is free, and asks at once.
		 */
		@Override
		long retrySoon(Attempt attempt, QuorumCall call) {
			Map<Long, Integer> votes = new HashMap<>();
			for (long reply : call.answeredValues((reply) -> reply < 0)) {
				long hint = (-reply - 1) % Script.PERMIT_HINT_RANGE;
				if (hint > 0) {
					votes.merge(hint - 1, 1, Integer::sum);
				}
			}
			if (votes.isEmpty()) {
				return -1;
			}
			long best = -1;
			int most = 0;
			for (Map.Entry<Long, Integer> vote : votes.entrySet()) {
				if (vote.getValue() > most || (vote.getValue() == most && vote.getKey() < best)) {
					best = vote.getKey();
					most = vote.getValue();
				}
			}
			this.slot = (int) best;
			return 0;
		}

		/**
		 * Moves a tryAcquire's sweep on to the nearest slot onward (cyclically, from the
		 * first slot) that may be free on a quorum. Each node bounds how far that is: a
		 * node that refused names its first free slot after the one asked for (none: it
		 * can take no slot), so no slot before that one is free there; a node that took
		 * the slot, or was not heard from, bounds nothing, so counts one step. A slot
		 * free on a quorum is at least as far as each of its quorum's nodes' bounds, so
		 * at least as far as the quorum-th smallest bound of all nodes: moving that far
		 * passes over no such slot. Ends the sweep when that passes the first slot again,
		 * when no quorum of nodes can take any slot, or when so many nodes failed to
		 * answer that no quorum is left.
		 */
		@Override
		boolean tryNextAtOnce(Attempt attempt, QuorumCall call) {
			int permits = PermitSemaphore.this.permits;
			NodeReply[] replies = call.repliesSoFar();
			int[] steps = new int[replies.length];
			int unanswered = 0;
			for (int i = 0; i < replies.length; i++) {
				NodeReply reply = replies[i];
				if (reply == null || !reply.answered() || reply.value() > 0) {
					unanswered += (reply != null && !reply.answered()) ? 1 : 0;
					steps[i] = 1;
				}
				else if (reply.value() == 0) {
					// a node that lost its data takes nothing until the restart guard
					// trusts it again
					steps[i] = permits;
				}
				else {
					long hint = (-reply.value() - 1) % Script.PERMIT_HINT_RANGE;
					int step = (hint == 0) ? permits : Math.floorMod(hint - 1 - attempt.slot(), permits);
					steps[i] = (step == 0) ? permits : step;
				}
			}
			int quorum = this.fleet.quorum();
			if (unanswered > replies.length - quorum) {
				return false;
			}
			Arrays.sort(steps);
			int swept = Math.floorMod(attempt.slot() - this.firstSlot, permits) + steps[quorum - 1];
			if (swept >= permits) {
				return false;
			}
			this.slot = (this.firstSlot + swept) % permits;
			return true;
		}

	}

}
