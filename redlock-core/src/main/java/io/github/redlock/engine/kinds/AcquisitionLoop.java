package io.github.redlock.engine.kinds;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongPredicate;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockKeys;
import io.github.redlock.NodeFailure;
import io.github.redlock.engine.lease.EngineContext;
import io.github.redlock.engine.lease.LiveLeases;
import io.github.redlock.engine.lease.RedlockLease;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.NodeReply;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.node.TurnProtocol;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import io.github.redlock.engine.waiting.LineHold;
import io.github.redlock.engine.waiting.Waiting;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One call to acquire a lock of any kind: attempts on every node at once, retried when
 * {@link Waiting} says, until the wait time is spent. Each kind
 * ({@link ExclusiveAcquisition}, the read and write acquisitions of
 * {@link ReadWriteLocks}, {@link PermitSemaphore}'s) says which scripts it sends, how its
 * lease acts ({@link io.github.redlock.engine.lease.LeaseOps}) and what sets it apart, as
 * the hooks below; the loop is the same for all.
 * <p>
 * <b>Invariants.</b>
 * <ul>
 * <li>A lease is handed out only when a quorum agreed within validity: an attempt counts
 * only once a quorum agreed to it ({@link QuorumCall}) and, after its fencing round,
 * {@code ttl - elapsed - drift} is still left ({@link AttemptOutcomes#noValidity}).</li>
 * <li>Every failed attempt is withdrawn on every node it was sent to: whatever ends it
 * (refusals, no quorum, no validity, an unaligned fencing round, the acquisition already
 * over) goes through {@link #failed}, whose first step is the kind's {@link #withdraw} of
 * that attempt, sent to every node once it answered.</li>
 * <li>The fencing token is never below any counter of the agreeing quorum: it is their
 * maximum, and the lease counts only once a quorum holds counters at least it
 * ({@link FencingRound}, which argues why tokens strictly increase).</li>
 * <li>Every attempt of an acquisition that may wait knows its place in the line, and so
 * retries or leaves from it: the line tells each attempt it starts its place
 * ({@link Waiting.Entrant}), since it may start one on another thread before
 * {@code enter} has returned.</li>
 * <li>A pending acquisition ends exactly once: its one future completes once, by the
 * lease, a failure or abandonment; a lease granted after that is released, never handed
 * to anyone.</li>
 * <li>Everything sent for one attempt (its acquire script to each node, however late that
 * goes out, its fencing round, its withdrawal) and the lease it makes name that attempt's
 * value and slot, fixed in its {@link Attempt} when it starts; what the kind chooses for
 * later attempts changes no attempt already started.</li>
 * </ul>
 * An acquisition that does not wait (a {@code tryAcquire}) makes a further attempt at
 * once only while the kind says a refusal left something untried ({@link #tryNextAtOnce})
 * and within one call bound ({@link NodeFleet#callBoundNanos}) of its start, so that a
 * caller blocking on it is still answered within the registry's decision bound for a zero
 * wait time: the attempts before the last take at most that call bound, the last and its
 * fencing round at most three node timeouts more.
 * <p>
 * One state machine (waiting in line, attempting, fencing, failing, retrying) whose steps
 * read and change the same attempt state, hence longer than most classes; what judges an
 * attempt is in {@link AttemptOutcomes}, the token in {@link FencingRound}, each
 * attempt's steps in {@link SentAttempt}.
 *
 * @author redlock contributors
 */
abstract class AcquisitionLoop extends AcquisitionKind implements LiveLeases.Pending, Waiting.Entrant {

	private static final Log logger = LogFactory.getLog(AcquisitionLoop.class);

	/** An attempt's reply that counts: the node took it (its counter's value). */
	private static final LongPredicate AGREES = (reply) -> reply > 0;

	private final String owner;

	private final Waiting line;

	private final boolean countedInLine;

	final long ttlNanos;

	final String ttlMillis;

	/** How long each attempt and its fencing round wait for a node. */
	private final long callTimeoutNanos;

	private final long deadline;

	private final CompletableFuture<RedlockLease> result = new CompletableFuture<>();

	/** Attempts sent so far; read by {@link #sendAfter} on the nodes' threads. */
	private volatile int attempts;

	/**
	 * The last failed attempt: the next one goes to each node after that attempt's
	 * withdrawal there (see {@link #sendAfter}). {@code null} before the first failure.
	 */
	private @Nullable QuorumCall previous;

	/**
	 * The attempt whose queueing last found the key free and woke the head
	 * ({@link #queue}); written on the nodes' threads.
	 */
	private volatile int freeWake = -1;

	/**
	 * Its place in its key's line, or {@code null} when it may not wait. Set by
	 * {@link #begin} and by the line's first call of {@link #attempt(Waiting.Waiter)},
	 * whichever comes first: a hand-off may run that before {@code enter} has returned.
	 */
	private volatile Waiting.@Nullable Waiter waiter;

	/**
	 * @param line the waiting lines it stands in, by its key
	 * @param countedInLine whether its lease keeps the line's head from trying (the
	 * exclusive and the write lock); readers and permits share the key and are not
	 * counted
	 */
	AcquisitionLoop(EngineContext engine, Waiting line, boolean countedInLine, String key, Duration ttl,
			Duration waitTime) {
		super(engine, key, waitTime);
		this.owner = engine.values().owner();
		this.line = line;
		this.countedInLine = countedInLine;
		this.ttlNanos = ttl.toNanos();
		this.ttlMillis = String.valueOf(ttl.toMillis());
		this.callTimeoutNanos = engine.validity().callTimeoutNanos(this.ttlNanos);
		this.deadline = engine.clock().nanoTime() + waitTime.toNanos();
	}

	/**
	 * Starts the acquisition once the nodes have been connected to.
	 * @return the lease, or a {@link LockAcquisitionException} once the wait time is
	 * spent; cancelling it abandons the acquisition
	 */
	CompletableFuture<RedlockLease> start() {
		if (!this.engine.leases().add(this)) {
			abandonOnClose();
			return this.result;
		}
		this.result.whenComplete((lease, ex) -> {
			this.engine.leases().remove(this);
			Waiting.Waiter place = this.waiter;
			if (place != null && place.leave()) { // done already if it acquired
				unqueue();
			}
			if (ex != null) {
				gaveUp();
			}
		});
		this.fleet.whenConnected(this::begin);
		return this.result;
	}

	/** Sends the first attempt, or stands in the key's line when it may wait. */
	private void begin() {
		if (this.result.isDone()) {
			return;
		}
		if (this.waitTime.isZero()) {
			attempt();
			return;
		}
		// the line reads the registry's clock, as the deadline does
		Waiting.Waiter place = this.line.enter(this.key, this, this.deadline);
		this.waiter = place;
		if (this.result.isDone()) {
			place.leave(); // completed while entering: the line must not wait for it
		}
		else if (place.startsNow()) {
			attempt();
		}
	}

	/** Its turn in the line: the place is set before the attempt reads it. */
	@Override
	public void attempt(Waiting.Waiter place) {
		this.waiter = place;
		attempt();
	}

	@Override
	public void timedOut(Waiting.Waiter place) {
		this.waiter = place;
		LockAcquisitionException failure = timedOutInLine(place.ahead(), this.attempts);
		tellNotAcquired(this.result, failure);
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

	private void attempt() {
		if (this.result.isDone()) {
			return;
		}
		Waiting.Waiter place = this.waiter;
		QuorumCall before = (this.previous == null && place != null && goesAfterOwnRelease()) ? place.released()
				: this.previous;
		String value = this.engine.values().next(this.owner);
		int slot = nextSlot();
		SentAttempt attempt = new SentAttempt(this, ++this.attempts, value, slot, args(value, slot),
				this.engine.clock().nanoTime(), before);
		this.fleet.quorumCall(AGREES, this.callTimeoutNanos, attempt).decision().thenAccept(attempt);
	}

	/**
	 * Sends an attempt to one node once that node answered the call before it, right
	 * after that call's withdrawal or release there (registered first on the same reply,
	 * so sent first on the same connection). Sent at once, it could reach a node that the
	 * value before still held, when that call was decided without the node (by refusals
	 * elsewhere): the node would answer "held by another owner" for the value's whole
	 * ttl. An attempt that a later one superseded, or that came after the acquisition
	 * ended, is not sent at all.
	 */
	void sendAfter(Attempt attempt, QuorumMember node, int index, NodeClient.ReplyHandler replies) {
		if (attempt.number() != this.attempts || this.result.isDone()) {
			replies.reply(index, NodeReply.unsent(new NodeFailure(node.toString(), NodeFailure.Kind.REFUSED,
					"not sent: the attempt was over before the node answered the one before it")));
			return;
		}
		send(node, attempt, index, replies);
	}

	void acquired(QuorumCall call, Attempt attempt, long start, long token) {
		long now = this.engine.clock().nanoTime();
		long validUntil = this.engine.validity().validUntil(start, this.ttlNanos);
		String tooLate = noValidity(start, now, validUntil, this.ttlMillis);
		if (tooLate != null) {
			failed(call, attempt, tooLate, LockAcquisitionException.Reason.VALIDITY_EXHAUSTED);
			return;
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Acquired '" + LockKeys.printable(this.key) + "' token " + token + " start " + start + " now "
					+ now + " validUntil " + validUntil + " nodes " + Arrays.toString(call.agreedNodes()) + " counters "
					+ Arrays.toString(call.agreedValues()));
		}
		// counted by the key's line before the lease exists, so before anyone can end it:
		// its end wakes the next
		LineHold hold = null;
		boolean unqueue = false;
		Waiting.Waiter place = this.waiter;
		if (place != null && this.countedInLine) {
			hold = place.leaveHolding();
			unqueue = hold.unqueue();
		}
		else if (place != null) {
			unqueue = place.leave();
		}
		else if (this.countedInLine) {
			hold = this.line.holding(this.key);
		}
		if (unqueue) {
			unqueue(); // acquired while queued, without a release naming the line
		}
		RedlockLease lease = lease(attempt, token, start, validUntil, call, hold);
		if (!this.engine.leases().add(lease)) {
			abandonOnClose(); // released already
			return;
		}
		tellAcquired();
		if (!this.result.complete(lease)) {
			lease.releaseAsync(); // the caller gave up meanwhile
		}
	}

	/**
	 * Withdraws a failed attempt everywhere, then tries again later, or fails: once the
	 * wait time is spent, or at once when fewer nodes than a quorum can count before it
	 * is.
	 * @param reason the reason, or {@code null} to judge it from the call's replies
	 */
	void failed(QuorumCall call, Attempt attempt, @Nullable String note,
			LockAcquisitionException.@Nullable Reason reason) {
		withdraw(call, attempt);
		this.previous = call;
		if (this.result.isDone()) {
			return;
		}
		if (this.waitTime.isZero() && reason == null
				&& this.engine.clock().nanoTime() - this.deadline < this.fleet.callBoundNanos()
				&& tryNextAtOnce(attempt, call)) {
			attempt();
			return;
		}
		long left = this.deadline - this.engine.clock().nanoTime();
		Waiting.Waiter place = this.waiter;
		String hopeless = (left > 0 && place != null) ? hopeless(left) : null;
		if (left <= 0 || place == null) {
			fail(call, attempt, note, reason);
		}
		else if (hopeless != null) {
			fail(call, attempt, hopeless, LockAcquisitionException.Reason.NO_QUORUM);
		}
		else {
			if (held(call) > 0) {
				queue(place);
			}
			if (!place.retry(Math.min(left, nextDelay(attempt, call, place)))) {
				abandonOnClose();
			}
		}
	}

	/**
	 * Queues this registry's line on the nodes after a holder refused an attempt (again,
	 * in its place, when they keep it queued already), when this kind queues
	 * ({@link #queueKeys}), so that a release hands it the turn when its turn comes:
	 * until then it waits for that hint or its poll, and a release wakes one process
	 * instead of every process's head waiter. Queueing marks the holder's value, without
	 * which its release would not look at the queue. When a quorum found the key free
	 * meanwhile, the release came between the refusal and the queueing and named nobody
	 * in this line: the head tries at once, but, unless the kind says otherwise
	 * ({@link #wakesOnEveryFreeQueueing}), not after two attempts in a row: a reader
	 * refused by a waiting writer's mark finds the key free and would try again and again
	 * while the mark lives.
	 */
	@SuppressWarnings("NullAway") // args are made only when there are keys
	private void queue(Waiting.Waiter place) {
		String[] keys = queueKeys();
		String[] args = (keys != null) ? place.queueArgs() : null;
		if (args == null) {
			return;
		}
		int attempt = this.attempts;
		this.fleet.queueWaiter(keys, args, () -> {
			if (wakesOnEveryFreeQueueing()) {
				this.line.hint(this.key, null);
			}
			else if (attempt - this.freeWake > 1) {
				this.freeWake = attempt;
				this.line.hint(this.key, null);
			}
		});
	}

	/**
	 * Takes this registry's line out of the nodes' queues: its last waiter left without
	 * the lock, or acquired while queued without a release naming it.
	 */
	private void unqueue() {
		String[] keys = queueKeys();
		if (keys != null) {
			this.fleet.queueWaiter(keys, TurnProtocol.unqueue(this.line.lineId()), null);
		}
	}

	/**
	 * Returns how long to wait before the next attempt
	 * ({@link AttemptOutcomes#nextDelay}), from the holders' remaining times as this kind
	 * reads them.
	 */
	private long nextDelay(Attempt attempt, QuorumCall call, Waiting.Waiter place) {
		long least = -1;
		for (long reply : call.answeredValues((reply) -> reply < 0)) {
			long millis = heldMillis(reply);
			least = (least < 0) ? millis : Math.min(least, millis);
		}
		return nextDelay(call, retrySoon(attempt, call), least, backsOff() ? place.pollBackoff() : 0);
	}

	private void fail(QuorumCall call, Attempt attempt, @Nullable String note,
			LockAcquisitionException.@Nullable Reason reason) {
		failOnceAnswered(this.result, call, this.attempts, note, reason, (reply) -> describeRefusal(attempt, reply));
	}

}
