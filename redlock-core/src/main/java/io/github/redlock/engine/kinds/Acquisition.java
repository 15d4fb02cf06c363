package io.github.redlock.engine.kinds;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redlock.Durations;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockKeys;
import io.github.redlock.NodeFailure;
import io.github.redlock.RedlockException;
import io.github.redlock.engine.RedlockSettings;
import io.github.redlock.engine.lease.EngineContext;
import io.github.redlock.engine.lease.LiveLeases;
import io.github.redlock.engine.lease.RedlockLease;
import io.github.redlock.engine.node.HeldReply;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.NodeReply;
import io.github.redlock.engine.node.NodeTrust;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import io.github.redlock.engine.waiting.Waiting;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One call to acquire a lock: attempts on every node at once, retried when
 * {@link Waiting} says, until the wait time is spent.
 * <p>
 * An attempt sends the acquire script to all nodes and is decided as soon as a quorum
 * agreed or can no longer agree. It counts only if the quorum answered within the
 * validity ({@code ttl - elapsed - drift > 0}); a failed attempt releases on every node,
 * including those that did not answer.
 *
 * <h2>Fencing tokens, and why they strictly increase</h2> Each node keeps, beside the
 * lock key, a counter for the key. The acquire script, in the same atomic step as the
 * {@code SET NX}, sets it to the node's clock if it is absent (in microseconds, rounded
 * down to the whole second, so that nodes starting a key's counter within the same second
 * agree and the common case stays one round trip), then increments it; the token is the
 * highest counter among the agreeing quorum. If fewer than a quorum reported that highest
 * value, a second round raises the others to it (only while the lock is still ours
 * there), and the lock counts as held only once a quorum has done so. So:
 * <p>
 * <b>Invariant.</b> When a lease with token {@code T} is granted, a quorum of nodes holds
 * counters {@code >= T}.
 * <p>
 * <b>Claim.</b> A lease granted later for the same key has a token {@code > T}. Its
 * quorum shares at least one node {@code n} with the quorum of the invariant (two
 * majorities intersect, also when a minority is partitioned away, since partitioned nodes
 * are in neither). If {@code n} still has its counter, the later script increments a
 * value {@code >= T}, and the later token, the maximum of its quorum, is {@code > T}.
 * <p>
 * <b>Withdrawn attempts.</b> A failed attempt's withdrawal may set a node's counter back
 * by one, from the token {@code U} the attempt got there to {@code U - 1}
 * ({@link Script#WITHDRAW}): in one script, only while the attempt's value is still on
 * the node and the counter still equals {@code U}. Then no acquisition has run on that
 * node since the attempt's (the {@code SET NX} fails while the value is there; a floor is
 * applied only after a script's own {@code SET NX}; a raise runs only where the raising
 * lease's value is), so the counter goes back to at least what it was before the attempt
 * ({@code U} is that value plus one, or a floor above it). No lease was granted with
 * {@code U}, the attempt having failed, and no counter falls below a value it held before
 * the attempt: the invariant still holds for every lease granted before, and the claim
 * reads counters only when the later script runs. The client asks for this only where the
 * attempt counted above every node that refused it
 * ({@link QuorumCall#tokenAboveHolders}), which keeps the counters of a key aligned when
 * other processes' attempts fail against a holder on a bare quorum; that choice is about
 * cost, not safety.
 * <p>
 * <b>When {@code n} lost its counter, or came back with an old one.</b> It restarted
 * empty, was flushed, came back from an older snapshot (an RDB save or an AOF fsynced
 * every second, after a crash: the counter is there, but below {@code T}), or the counter
 * expired ({@code fencingRetention} after its last write, each acquisition and extension
 * writing it). Then the argument rests on clocks. Every counter value began as a node's
 * clock reading (a new counter starts from the node's clock rounded down to the second; a
 * floor, below, is a node's clock reading) and has grown by one per acquisition since,
 * far slower than clocks grow (a million a second), so a token handed out at time
 * {@code t} is at most {@code t + s}, where {@code s} bounds how far a node's clock is
 * off true time.
 * <ul>
 * <li><b>Restarts and data loss (restart guard on).</b> A node that restarted or lost its
 * data sits out of every quorum until the guard time ({@code maxTtl} plus drift) has
 * passed since, on this client's monotonic clock. Its floor ({@link NodeTrust#floor()})
 * is its own clock reading of that moment: its start (from its uptime) or its marker's
 * creation, plus the guard time. The acquire script lifts a counter below the floor to
 * the floor, so whatever the node came back with, its next token is at least
 * {@code t_back + guard - s} in true time, while {@code T} was handed out before
 * {@code t_back} and is at most {@code t_back + s}: the later token is above {@code T}
 * when {@code guard > 2s}. {@link RedlockSettings} refuses a {@code maxTtl} under one
 * second with the guard on.</li>
 * <li><b>Expiry.</b> An expired counter had {@code fencingRetention} without writes; it
 * starts again from the clock, rounded down to the second, which is above {@code T} when
 * {@code fencingRetention > 2s + 1s} (the builder refuses one under two seconds; the
 * default is a day).</li>
 * </ul>
 * So tokens strictly increase under these assumptions:
 * <ol>
 * <li>no node's clock is off true time by more than half of {@code maxTtl} (restarts,
 * with the guard) or half of {@code fencingRetention} minus one second (expiry), and no
 * clock is set back by more than that;
 * <li>one key is acquired fewer than a million times a second on average since its
 * counter began;
 * <li>with the restart guard off, a node that restarted empty or stale has a clock that
 * is not behind the others by more than the time since the key's counter began, and is
 * not back within that time: without the guard, neither exclusion nor tokens survive a
 * quorum that forgot.
 * </ol>
 * Two leases are never both held at once, and a later one has a larger token, so no two
 * holders ever share a token.
 *
 * @author redlock contributors
 */
public final class Acquisition implements LiveLeases.Pending {

	private static final Log logger = LogFactory.getLog(Acquisition.class);

	private final EngineContext engine;

	private final NodeFleet fleet;

	private final String key;

	private final String owner;

	private final String[] keys;

	/** The lock and its fencing counter, without the node marker. */
	private final String[] lockAndFence;

	private final long ttlNanos;

	private final String ttlMillis;

	private final Duration waitTime;

	private final long deadline;

	private final CompletableFuture<RedlockLease> result = new CompletableFuture<>();

	/** Attempts sent so far; read by {@link #acquireAfter} on the nodes' threads. */
	private volatile int attempts;

	/**
	 * The last failed attempt, whose withdrawal goes to each node only once that node
	 * answered it: the next attempt goes to a node after that withdrawal (see
	 * {@link #acquireAfter}). {@code null} before the first failure.
	 */
	private QuorumCall previous;

	/** Its place in its key's line, or {@code null} when it may not wait. */
	private volatile Waiting.Waiter waiter;

	private final AttemptOutcomes outcomes;

	private Acquisition(EngineContext engine, String key, Duration ttl, Duration waitTime) {
		this.engine = engine;
		this.fleet = engine.fleet();
		this.key = key;
		this.owner = engine.values().owner();
		this.keys = engine.keys().nodeKeys(key);
		this.lockAndFence = Arrays.copyOf(this.keys, 2);
		this.ttlNanos = ttl.toNanos();
		this.ttlMillis = String.valueOf(ttl.toMillis());
		this.waitTime = waitTime;
		this.deadline = engine.clock().nanoTime() + waitTime.toNanos();
		this.outcomes = new AttemptOutcomes(engine, key, waitTime);
	}

	/**
	 * Starts acquiring a lock, once the nodes have been connected to.
	 * @return the lease, or a {@link LockAcquisitionException} once the wait time is
	 * spent; cancelling it abandons the acquisition
	 */
	public static CompletableFuture<RedlockLease> start(EngineContext engine, String key, Duration ttl,
			Duration waitTime) {
		Acquisition acquisition = new Acquisition(engine, key, ttl, waitTime);
		if (!engine.leases().add(acquisition)) {
			acquisition.abandonOnClose();
			return acquisition.result;
		}
		acquisition.result.whenComplete((lease, ex) -> {
			engine.leases().remove(acquisition);
			Waiting.Waiter place = acquisition.waiter;
			if (place != null && place.leave(false)) { // done already if it acquired
				acquisition.unqueue();
			}
		});
		engine.fleet().whenConnected(acquisition::begin);
		return acquisition.result;
	}

	/**
	 * Sends the first attempt, or stands in the key's line (see {@link Waiting}) when the
	 * acquisition may wait.
	 */
	private void begin() {
		if (this.result.isDone()) {
			return;
		}
		if (this.waitTime.isZero()) {
			attempt();
			return;
		}
		long deadlineNanos = System.nanoTime() + (this.deadline - this.engine.clock().nanoTime());
		Waiting.Waiter place = this.engine.waiting()
			.enter(this.key, this::attempt, this::timedOutInLine, deadlineNanos);
		this.waiter = place;
		if (this.result.isDone()) {
			place.leave(false); // completed while entering: the line must not wait for it
		}
		else if (place.startsNow()) {
			attempt();
		}
	}

	/**
	 * Fails the acquisition whose wait time was spent in line behind earlier acquisitions
	 * of this registry for the same key, without an attempt of its own.
	 */
	private void timedOutInLine() {
		Waiting.Waiter place = this.waiter;
		int ahead = (place != null) ? place.ahead() : 0;
		LockAcquisitionException failure = this.outcomes.timedOutInLine(ahead, this.attempts);
		this.outcomes.tellNotAcquired(this.result, failure);
		this.result.completeExceptionally(failure);
	}

	/**
	 * Fails the acquisition because the registry closed; a lease the nodes grant later is
	 * released and handed to nobody.
	 */
	@Override
	public void abandonOnClose() {
		this.result.completeExceptionally(
				new IllegalStateException(this.engine.leases().refusal(LockKeys.printable(this.key))));
	}

	/**
	 * Waits for an acquisition on the caller's thread, at most {@code bound}: the wait
	 * time plus what deciding the last attempt may take
	 * ({@code RedlockRegistry.decisionBound}). The engine decides every acquisition
	 * within that; should it not, the caller gets a {@link LockAcquisitionException}
	 * rather than a hang, and the acquisition is abandoned (a lease granted after that is
	 * released at once).
	 * @param future the acquisition
	 * @param key the lock key, for the message
	 * @param bound how long to wait at most
	 * @throws InterruptedException if interrupted, which abandons the acquisition
	 * @throws LockAcquisitionException rethrown from the caller's thread, so that its
	 * stack trace shows the caller
	 */
	public static RedlockLease await(CompletableFuture<RedlockLease> future, String key, Duration bound)
			throws InterruptedException {
		try {
			return future.get(bound.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			future.cancel(false);
			throw ex;
		}
		catch (TimeoutException ex) {
			future.cancel(false);
			throw new LockAcquisitionException(LockAcquisitionException.Reason.NO_QUORUM, key, "Lock '"
					+ LockKeys.printable(key) + "' was not acquired: the acquisition was not decided within "
					+ Durations.format(bound) + " (its wait time, the connect timeout and two rounds of node"
					+ " timeouts), so it was abandoned, and a lock granted to it later is released at once. This is"
					+ " a defect of the redlock engine: please report it with this registry's log.");
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof LockAcquisitionException failure) {
				throw new LockAcquisitionException(failure.getMessage(), failure);
			}
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new RedlockException("Lock acquisition failed", cause);
		}
	}

	private void attempt() {
		if (this.result.isDone()) {
			return;
		}
		int attempt = ++this.attempts;
		String value = this.engine.values().next(this.owner);
		long start = this.engine.clock().nanoTime();
		String[] args = { value, this.ttlMillis, this.engine.retentionMillis() };
		Waiting.Waiter place = this.waiter;
		// a retry goes after the attempt before; a first attempt after this registry's
		// last release of the key, on each node
		QuorumCall before = (this.previous != null || place == null) ? this.previous : place.released();
		QuorumCall call = this.fleet.quorumCall((reply) -> reply > 0,
				(before == null) ? (node, index, replies) -> acquireOn(node, args, index, replies)
						: (node, index, replies) -> before.afterReply(index,
								(answered) -> acquireAfter(attempt, node, args, index, replies)));
		call.decision().thenAccept((decided) -> {
			if (decided.succeeded()) {
				fence(decided, value, start);
			}
			else {
				failed(decided, value, null, null);
			}
		});
	}

	/**
	 * Sends a retry to one node once that node answered the previous attempt, right after
	 * that attempt's withdrawal (registered first on the same reply, so sent first on the
	 * same connection). Sent at once, a retry could reach a node that the previous
	 * attempt's value still held, when that attempt was decided without the node (by
	 * refusals elsewhere): the node would answer "held by another owner" for the value's
	 * whole ttl. An attempt that a later one superseded, or that came after the
	 * acquisition ended, is not sent at all.
	 * @param attempt the attempt's number
	 */
	private void acquireAfter(int attempt, NodeClient node, String[] args, int index, NodeClient.ReplyHandler replies) {
		if (attempt != this.attempts || this.result.isDone()) {
			replies.reply(index, NodeReply.unsent(new NodeFailure(node.toString(), NodeFailure.Kind.REFUSED,
					"not sent: the attempt was over before the node answered the one before it")));
			return;
		}
		acquireOn(node, args, index, replies);
	}

	/**
	 * Sends the acquire script to one node: with the node marker's key and value only
	 * when the restart guard knows a marker to check, else two keys and three arguments.
	 * @param args the value, the ttl and the retention, shared by the attempt's nodes
	 */
	private void acquireOn(NodeClient node, String[] args, int index, NodeClient.ReplyHandler replies) {
		String marker = node.marker();
		if (marker.isEmpty()) {
			node.eval(Script.ACQUIRE, this.lockAndFence, args, index, replies);
		}
		else {
			node.eval(Script.ACQUIRE, this.keys, new String[] { args[0], args[1], args[2], marker, node.floor() },
					index, replies);
		}
	}

	private void fence(QuorumCall call, String value, long start) {
		String secret = LockValues.secret(value);
		String retention = this.engine.retentionMillis();
		FencingRound.decide(this.engine, call,
				(node, token, index, replies) -> node.eval(Script.RAISE_FENCE, this.lockAndFence,
						new String[] { secret, token, retention }, index, replies),
				(token) -> acquired(call, value, start, token),
				() -> failed(call, value, AttemptOutcomes.UNALIGNED, LockAcquisitionException.Reason.NO_QUORUM));
	}

	private void acquired(QuorumCall call, String value, long start, long token) {
		long now = this.engine.clock().nanoTime();
		long validUntil = this.engine.validity().validUntil(start, this.ttlNanos);
		String tooLate = AttemptOutcomes.noValidity(start, now, validUntil, this.ttlMillis);
		if (tooLate != null) {
			failed(call, value, tooLate, LockAcquisitionException.Reason.VALIDITY_EXHAUSTED);
			return;
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Acquired '" + LockKeys.printable(this.key) + "' token " + token + " start " + start + " now "
					+ now + " validUntil " + validUntil + " nodes " + Arrays.toString(call.agreedNodes()) + " counters "
					+ Arrays.toString(call.agreedValues()));
		}
		RedlockLease lease = new RedlockLease(this.engine, this.key, this.lockAndFence, value, token, start, validUntil,
				call);
		// counted by the key's line before anyone can release it: its end wakes the next
		Waiting.Waiter place = this.waiter;
		if (place != null) {
			if (place.leave(true)) {
				unqueue(); // acquired while queued, without a release naming the line
			}
		}
		else {
			this.engine.waiting().holding(this.key);
		}
		if (!this.engine.leases().add(lease)) {
			abandonOnClose(); // released already
			return;
		}
		this.outcomes.tellAcquired();
		if (!this.result.complete(lease)) {
			lease.releaseAsync(); // the caller gave up meanwhile
		}
	}

	/**
	 * Tries again later, or fails: once the wait time is spent, or at once when fewer
	 * nodes than a quorum can count before it is (see
	 * {@link NodeFleet#quorumPossibleBy}).
	 * @param reason the reason, or {@code null} to judge it from the call's replies
	 */
	private void failed(QuorumCall call, String value, String note, LockAcquisitionException.Reason reason) {
		this.fleet.withdrawEverywhere(this.lockAndFence, LockValues.secret(value), call, this.engine.retentionMillis());
		this.previous = call;
		if (this.result.isDone()) {
			return;
		}
		long left = this.deadline - this.engine.clock().nanoTime();
		Waiting.Waiter place = this.waiter;
		String hopeless = (left > 0 && place != null) ? this.outcomes.hopeless(left) : null;
		if (left <= 0 || place == null) {
			fail(call, note, reason);
		}
		else if (hopeless != null) {
			fail(call, hopeless, LockAcquisitionException.Reason.NO_QUORUM);
		}
		else {
			if (AttemptOutcomes.held(call) > 0) {
				queue(place);
			}
			long delay = this.outcomes.nextDelay(call, -1, call.leastHeldMillis(), place.pollBackoff());
			if (!place.retry(Math.min(left, delay))) {
				abandonOnClose();
			}
		}
	}

	/**
	 * Queues this registry's line on the nodes after a holder refused an attempt (again,
	 * in its place, when they keep it queued already), so that a release hands it the
	 * turn when its turn comes ({@link Script#RELEASE}): until then it waits for that
	 * hint or its poll, and a release wakes one process instead of every process's head
	 * waiter. Queueing marks the holder's value, without which its release would not look
	 * at the queue. When a quorum of nodes found the key free meanwhile, the release came
	 * between the refusal and the queueing and named nobody in this line: it tries at
	 * once.
	 */
	private void queue(Waiting.Waiter place) {
		String[] args = place.queueArgs();
		if (args != null) {
			this.fleet.queueWaiter(queueKeys(), args, () -> this.engine.waiting().hint(this.key, null));
		}
	}

	/** The lock's key and the key's queue of waiting processes on the nodes. */
	private String[] queueKeys() {
		return new String[] { this.keys[0], this.engine.keys().waitersKey(this.key) };
	}

	/**
	 * Takes this registry's line out of the nodes' queues: after its last waiter left
	 * without the lock (gave up, was cancelled, or the registry closed), or after a
	 * waiter acquired while the line was queued and no release named it.
	 */
	private void unqueue() {
		this.fleet.queueWaiter(queueKeys(),
				new String[] { String.valueOf(System.currentTimeMillis()), this.engine.waiting().lineId(), "0" }, null);
	}

	/**
	 * Fails the acquisition once every node of its last attempt has answered.
	 * @param reason the reason, or {@code null} to judge it from the call's replies
	 */
	private void fail(QuorumCall call, String note, LockAcquisitionException.Reason reason) {
		this.outcomes.fail(this.result, call, this.attempts, note, reason,
				(reply) -> "by another owner for " + HeldReply.millis(reply) + "ms more");
	}

}
