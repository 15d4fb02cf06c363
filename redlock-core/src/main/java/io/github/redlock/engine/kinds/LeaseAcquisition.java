package io.github.redlock.engine.kinds;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockKeys;
import io.github.redlock.NodeFailure;
import io.github.redlock.engine.lease.EngineContext;
import io.github.redlock.engine.lease.LiveLeases;
import io.github.redlock.engine.lease.RedlockLease;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.NodeReply;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import io.github.redlock.engine.waiting.Waiting;

/**
 * One call to acquire a read lock, a write lock or a permit: the same flow as
 * {@link Acquisition} (an attempt on every node at once, decided at a quorum, counted
 * only within its validity, withdrawn everywhere when it fails, retried when
 * {@link Waiting} says, until the wait time is spent; the fencing token is the highest
 * counter of the quorum, with a second round that raises the others), with the scripts of
 * its kind ({@link ReadWriteLocks}, {@link PermitSemaphore}, whose documentation argues
 * safety). Kept apart from {@code Acquisition} so that the exclusive lock's path stays as
 * it is; the two share the fleet, quorum calls, validity, the restart guard's marker and
 * floor, the fencing scheme, waiting lines and the lease.
 * <p>
 * Invariants: everything sent for one attempt (its acquire script to each node, however
 * late that goes out, its fencing round, its withdrawal) and the lease it makes name that
 * attempt's value and slot, fixed in its {@link Attempt} when it starts; what the kind
 * chooses for later attempts changes no attempt already started. So a withdrawal removes
 * what its attempt wrote on every node, even on a node whose send went out after the next
 * attempt's slot was chosen. An acquisition that does not wait (a {@code tryAcquire})
 * makes a further attempt at once only while the kind says a refusal left something
 * untried ({@link #tryNextAtOnce}) and within one call bound
 * ({@link NodeFleet#callBoundNanos}) of its start, so that a caller blocking on it is
 * still answered within the registry's decision bound for a zero wait time: the attempts
 * before the last take at most that call bound, the last and its fencing round at most
 * three node timeouts more.
 *
 * @author redlock contributors
 */
abstract class LeaseAcquisition implements LiveLeases.Pending {

	final EngineContext engine;

	final NodeFleet fleet;

	final String key;

	private final String owner;

	private final Waiting line;

	private final boolean countedInLine;

	final long ttlNanos;

	final String ttlMillis;

	private final Duration waitTime;

	private final long deadline;

	private final CompletableFuture<RedlockLease> result = new CompletableFuture<>();

	/** Attempts sent so far; read by {@link #sendAfter} on the nodes' threads. */
	private volatile int attempts;

	/**
	 * The last failed attempt: the next one goes to each node after that attempt's
	 * withdrawal there, as {@link Acquisition}'s retries do (see its
	 * {@code acquireAfter}). {@code null} before the first failure.
	 */
	private QuorumCall previous;

	/**
	 * The attempt whose queueing last found the key free and woke the head
	 * ({@link #queue}); written on the nodes' threads.
	 */
	private volatile int freeWake = -1;

	private volatile Waiting.Waiter waiter;

	private final AttemptOutcomes outcomes;

	/**
	 * @param line the waiting lines it stands in, by its key
	 * @param countedInLine whether its lease keeps the line's head from trying (a write
	 * lock); readers and permits share the key and are not counted
	 */
	LeaseAcquisition(EngineContext engine, Waiting line, boolean countedInLine, String key, Duration ttl,
			Duration waitTime) {
		this.engine = engine;
		this.fleet = engine.fleet();
		this.key = key;
		this.owner = engine.values().owner();
		this.line = line;
		this.countedInLine = countedInLine;
		this.ttlNanos = ttl.toNanos();
		this.ttlMillis = String.valueOf(ttl.toMillis());
		this.waitTime = waitTime;
		this.deadline = engine.clock().nanoTime() + waitTime.toNanos();
		this.outcomes = new AttemptOutcomes(engine, key, waitTime);
	}

	/**
	 * One attempt, fixed when it starts.
	 *
	 * @param number its number, from 1
	 * @param value its lock value
	 * @param slot the permit slot it asks for ({@link #nextSlot}; 0 for the kinds without
	 * slots)
	 */
	record Attempt(int number, String value, int slot) {

	}

	/**
	 * Returns the slot the next attempt asks for: read once as it starts.
	 */
	int nextSlot() {
		return 0;
	}

	/**
	 * Sends this attempt's acquire script to one node.
	 */
	abstract void send(NodeClient node, Attempt attempt, int index, NodeClient.ReplyHandler replies);

	/**
	 * Sends the second fencing round to one node: raise its counter to {@code token}
	 * while the attempt's value is still held there, answering 1.
	 */
	abstract void raise(NodeClient node, Attempt attempt, String secret, String token, int index,
			NodeClient.ReplyHandler replies);

	/**
	 * Withdraws a failed attempt's value from every node.
	 */
	abstract void withdraw(QuorumCall call, Attempt attempt);

	/**
	 * Makes the lease of a successful attempt.
	 */
	abstract RedlockLease lease(Attempt attempt, long token, long start, long validUntil, QuorumCall call);

	/**
	 * Returns the remaining ms of the holder that a negative reply reports.
	 */
	long heldMillis(long reply) {
		return -reply - 1;
	}

	/**
	 * Describes a negative reply to an attempt for the failure message.
	 */
	abstract String describeRefusal(Attempt attempt, long reply);

	/**
	 * Returns how soon to try again after a refusal of {@code attempt} that the kind can
	 * act on at once (a semaphore told of a free permit), or {@code -1} to wait as usual.
	 */
	long retrySoon(Attempt attempt, QuorumCall call) {
		return -1;
	}

	/**
	 * For an acquisition that does not wait: returns whether to make another attempt at
	 * once after {@code attempt} was refused, because what the nodes answered leaves
	 * something untried that may be free on a quorum (a semaphore's next slot, which this
	 * then sets for {@link #nextSlot}); {@code false} ends the acquisition.
	 */
	boolean tryNextAtOnce(Attempt attempt, QuorumCall call) {
		return false;
	}

	/**
	 * Returns the lock's key and the key's queue of waiting processes on the nodes, when
	 * a refusal of this kind queues its line there ({@link Script#QUEUE_WAITER}), else
	 * {@code null}. Read and write locks wait for the exclusive lock's key: queued, they
	 * mark an exclusive holder's value, whose release then publishes and names them in
	 * their turn. A semaphore's permits have hints of their own.
	 */
	String[] queueKeys() {
		return null;
	}

	/**
	 * Called once when the acquisition fails or is abandoned.
	 */
	void gaveUp() {
	}

	/**
	 * Starts the acquisition once the nodes have been connected to.
	 */
	CompletableFuture<RedlockLease> start() {
		if (!this.engine.leases().add(this)) {
			abandonOnClose();
			return this.result;
		}
		this.result.whenComplete((lease, ex) -> {
			this.engine.leases().remove(this);
			Waiting.Waiter place = this.waiter;
			if (place != null && place.leave(false)) { // done already if it acquired
				unqueue();
			}
			if (ex != null) {
				gaveUp();
			}
		});
		this.fleet.whenConnected(this::begin);
		return this.result;
	}

	private void begin() {
		if (this.result.isDone()) {
			return;
		}
		if (this.waitTime.isZero()) {
			attempt();
			return;
		}
		long deadlineNanos = System.nanoTime() + (this.deadline - this.engine.clock().nanoTime());
		Waiting.Waiter place = this.line.enter(this.key, this::attempt, this::timedOutInLine, deadlineNanos);
		this.waiter = place;
		if (this.result.isDone()) {
			place.leave(false);
		}
		else if (place.startsNow()) {
			attempt();
		}
	}

	private void timedOutInLine() {
		Waiting.Waiter place = this.waiter;
		int ahead = (place != null) ? place.ahead() : 0;
		LockAcquisitionException failure = this.outcomes.timedOutInLine(ahead, this.attempts);
		this.outcomes.tellNotAcquired(this.result, failure);
		this.result.completeExceptionally(failure);
	}

	@Override
	public void abandonOnClose() {
		this.result.completeExceptionally(
				new IllegalStateException(this.engine.leases().refusal(LockKeys.printable(this.key))));
	}

	private void attempt() {
		if (this.result.isDone()) {
			return;
		}
		Attempt attempt = new Attempt(++this.attempts, this.engine.values().next(this.owner), nextSlot());
		long start = this.engine.clock().nanoTime();
		QuorumCall before = this.previous;
		QuorumCall call = this.fleet.quorumCall((reply) -> reply > 0,
				(before == null) ? (node, index, replies) -> send(node, attempt, index, replies) : (node, index,
						replies) -> before.afterReply(index, (answered) -> sendAfter(attempt, node, index, replies)));
		call.decision().thenAccept((decided) -> {
			if (decided.succeeded()) {
				fence(decided, attempt, start);
			}
			else {
				failed(decided, attempt, null, null);
			}
		});
	}

	private void fence(QuorumCall call, Attempt attempt, long start) {
		String secret = LockValues.secret(attempt.value());
		FencingRound.decide(this.engine, call,
				(node, token, index, replies) -> raise(node, attempt, secret, token, index, replies),
				(token) -> acquired(call, attempt, start, token),
				() -> failed(call, attempt, AttemptOutcomes.UNALIGNED, LockAcquisitionException.Reason.NO_QUORUM));
	}

	private void acquired(QuorumCall call, Attempt attempt, long start, long token) {
		long now = this.engine.clock().nanoTime();
		long validUntil = this.engine.validity().validUntil(start, this.ttlNanos);
		String tooLate = AttemptOutcomes.noValidity(start, now, validUntil, this.ttlMillis);
		if (tooLate != null) {
			failed(call, attempt, tooLate, LockAcquisitionException.Reason.VALIDITY_EXHAUSTED);
			return;
		}
		RedlockLease lease = lease(attempt, token, start, validUntil, call);
		Waiting.Waiter place = this.waiter;
		if (place != null) {
			if (place.leave(this.countedInLine)) {
				unqueue(); // acquired while queued, without a release naming the line
			}
		}
		else if (this.countedInLine) {
			this.line.holding(this.key);
		}
		if (!this.engine.leases().add(lease)) {
			abandonOnClose();
			return;
		}
		this.outcomes.tellAcquired();
		if (!this.result.complete(lease)) {
			lease.releaseAsync();
		}
	}

	/**
	 * Sends a retry to one node once that node answered the previous attempt, right after
	 * that attempt's withdrawal, so that the retry never finds the previous attempt's
	 * entry there; an attempt already superseded, or after the acquisition ended, is not
	 * sent.
	 */
	private void sendAfter(Attempt attempt, NodeClient node, int index, NodeClient.ReplyHandler replies) {
		if (attempt.number() != this.attempts || this.result.isDone()) {
			replies.reply(index, NodeReply.unsent(new NodeFailure(node.toString(), NodeFailure.Kind.REFUSED,
					"not sent: the attempt was over before the node answered the one before it")));
			return;
		}
		send(node, attempt, index, replies);
	}

	private void failed(QuorumCall call, Attempt attempt, String note, LockAcquisitionException.Reason reason) {
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
		String hopeless = (left > 0 && place != null) ? this.outcomes.hopeless(left) : null;
		if (left <= 0 || place == null) {
			fail(call, attempt, note, reason);
		}
		else if (hopeless != null) {
			fail(call, attempt, hopeless, LockAcquisitionException.Reason.NO_QUORUM);
		}
		else {
			if (AttemptOutcomes.held(call) > 0) {
				queue(place);
			}
			if (!place.retry(Math.min(left, nextDelay(attempt, call, place)))) {
				abandonOnClose();
			}
		}
	}

	/**
	 * Queues the line on the nodes after a holder refused an attempt, as
	 * {@link Acquisition} does, when this kind queues ({@link #queueKeys}). When a quorum
	 * found the key free meanwhile, the head tries at once, but not after two attempts in
	 * a row: a reader refused by a waiting writer's mark finds the key free and would try
	 * again and again while the mark lives.
	 */
	private void queue(Waiting.Waiter place) {
		String[] keys = queueKeys();
		String[] args = (keys != null) ? place.queueArgs() : null;
		if (args == null) {
			return;
		}
		int attempt = this.attempts;
		this.fleet.queueWaiter(keys, args, () -> {
			if (attempt - this.freeWake > 1) {
				this.freeWake = attempt;
				this.line.hint(this.key, null);
			}
		});
	}

	/**
	 * Takes the line out of the nodes' queues ({@link Acquisition}'s {@code unqueue}).
	 */
	private void unqueue() {
		String[] keys = queueKeys();
		if (keys != null) {
			this.fleet.queueWaiter(keys,
					new String[] { String.valueOf(System.currentTimeMillis()), this.line.lineId(), "0" }, null);
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
		return this.outcomes.nextDelay(call, retrySoon(attempt, call), least, backsOff() ? place.pollBackoff() : 0);
	}

	/**
	 * Returns whether a queued head of this kind polls ever less often, as the exclusive
	 * lock's does ({@link Waiting.Waiter#pollBackoff}): not a kind whose refused attempts
	 * leave something only its next attempt renews (a writer's mark, which keeps new
	 * readers out only while its writer polls within its life).
	 */
	boolean backsOff() {
		return true;
	}

	private void fail(QuorumCall call, Attempt attempt, String note, LockAcquisitionException.Reason reason) {
		this.outcomes.fail(this.result, call, this.attempts, note, reason, (reply) -> describeRefusal(attempt, reply));
	}

}
