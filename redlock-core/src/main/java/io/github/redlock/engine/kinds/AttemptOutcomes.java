package io.github.redlock.engine.kinds;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.NodeFailure;
import io.github.redlock.engine.lease.EngineContext;
import io.github.redlock.engine.lease.RedlockLease;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import io.github.redlock.engine.waiting.Waiting;
import org.jspecify.annotations.Nullable;

/**
 * How one acquisition judges its attempts, whatever its kind: whether an agreed attempt
 * still has validity, whether a refused one met holders, a split vote or no quorum, how
 * long to wait before the next, and the failure the caller gets with what each node
 * answered. Kept apart from the loop that sends the attempts so that every kind words its
 * refusals and paces its retries the same way. The loop's superclass rather than an
 * object it holds, so that an acquisition is one object: the judging is here, the sending
 * in {@link AcquisitionLoop}.
 *
 * @author redlock contributors
 */
abstract class AttemptOutcomes {

	/** Why an agreed attempt failed when its second fencing round found no quorum. */
	static final String UNALIGNED = "the fencing counters could not be aligned on a quorum";

	final EngineContext engine;

	final NodeFleet fleet;

	final String key;

	/**
	 * The cluster slot of the key's state, which a cluster member routes by; 0 on single
	 * nodes ({@code KeyLayout#slot}). Not a semaphore's permit slot.
	 */
	final int keySlot;

	final Duration waitTime;

	private final long startedNanos = System.nanoTime();

	/** Split votes in a row: see {@link #nextDelay}. */
	private int splits;

	AttemptOutcomes(EngineContext engine, String key, Duration waitTime) {
		this.engine = engine;
		this.fleet = engine.fleet();
		this.key = key;
		this.keySlot = engine.keys().slot(key);
		this.waitTime = waitTime;
	}

	/**
	 * Returns why an attempt that a quorum agreed to does not count, or {@code null} if
	 * it still has validity at {@code now}.
	 * @param validUntil the end of its validity
	 */
	static @Nullable String noValidity(long start, long now, long validUntil, String ttlMillis) {
		if (now < validUntil) {
			return null;
		}
		return "a quorum agreed only after " + TimeUnit.NANOSECONDS.toMillis(now - start)
				+ "ms, which leaves no validity of the " + ttlMillis + "ms ttl once drift is allowed for";
	}

	/**
	 * Returns why a refused attempt stops early: fewer nodes than a quorum can count
	 * before the wait time is spent ({@link NodeFleet#quorumPossibleBy}), or {@code null}
	 * to go on.
	 * @param left what is left of the wait time, in ns
	 */
	@Nullable String hopeless(long left) {
		if (this.fleet.quorumPossibleBy(this.keySlot, System.nanoTime() + left)) {
			return null;
		}
		return "fewer nodes than a quorum are usable and none is expected back within the wait time, so it"
				+ " stopped trying " + TimeUnit.NANOSECONDS.toMillis(left) + "ms early";
	}

	/**
	 * Returns how many nodes answered "held by another owner".
	 */
	static int held(QuorumCall call) {
		return call.countAnswered((reply) -> reply < 0);
	}

	/**
	 * Returns how long to wait before the next attempt. A split vote (some nodes agreed,
	 * fewer than a quorum hold another owner's value) means the key was free moments ago
	 * and another process's waiter raced this one, each withdrawing its minority; a
	 * refusal the kind can act on at once is alike: the next attempt goes after a random
	 * delay up to 1ms, doubling with each in a row up to the retry delay, so that one of
	 * them wins soon. Otherwise {@link Waiting#retryDelay}, never later than the shortest
	 * remaining time the holders reported.
	 * @param soon how soon the kind would try again, or {@code -1} to wait as usual
	 * @param leastHeldMillis the shortest remaining time of a holder, or {@code -1}
	 * @param backoff the queued head's poll backoff, or 0
	 */
	long nextDelay(QuorumCall call, long soon, long leastHeldMillis, int backoff) {
		int held = held(call);
		if (soon >= 0 || (call.agreedCount() > 0 && held > 0 && held < this.fleet.quorum())) {
			long bound = Math.min(this.engine.waiting().retryDelayNanos(),
					TimeUnit.MILLISECONDS.toNanos(1) << Math.min(this.splits++, 10));
			return Math.max(soon, 0) + ThreadLocalRandom.current().nextLong(bound + 1);
		}
		this.splits = 0;
		return this.engine.waiting()
			.retryDelay((leastHeldMillis < 0) ? -1 : TimeUnit.MILLISECONDS.toNanos(leastHeldMillis), backoff);
	}

	/**
	 * Returns the failure of an acquisition whose wait time was spent in line behind
	 * earlier acquisitions of this registry for the same key, without an attempt of its
	 * own.
	 */
	LockAcquisitionException timedOutInLine(int ahead, int attempts) {
		return new LockAcquisitionException(LockAcquisitionException.Reason.HELD, this.key, this.waitTime, attempts, 0,
				this.fleet.quorum(), this.fleet.size(), List.of(),
				(ahead == 0) ? "it waited behind a lease of this registry on the same key, held all that time"
						: "it waited its turn behind " + ahead + " earlier acquisition" + ((ahead == 1) ? "" : "s")
								+ " of this registry for the same key, which held or tried it all that time");
	}

	/**
	 * Fails the acquisition once every node of its last attempt has answered, telling the
	 * listeners first.
	 * @param reason the reason, or {@code null} to judge it from the call's replies
	 * @param describe words a negative reply
	 */
	void failOnceAnswered(CompletableFuture<RedlockLease> result, QuorumCall call, int attempts, @Nullable String note,
			LockAcquisitionException.@Nullable Reason reason, Function<Long, String> describe) {
		call.completion().thenRun(() -> {
			int agreed = call.countAnswered((reply) -> reply > 0);
			List<NodeFailure> failures = call.failures(describe);
			LockAcquisitionException failure = new LockAcquisitionException(reason, this.key, this.waitTime, attempts,
					agreed, this.fleet.quorum(), this.fleet.size(), failures, note, this.fleet.untilQuorumCounts());
			tellNotAcquired(result, failure);
			result.completeExceptionally(failure);
		});
	}

	/**
	 * Tells the listeners that the acquisition failed, unless it ended already.
	 */
	void tellNotAcquired(CompletableFuture<RedlockLease> result, LockAcquisitionException failure) {
		if (!result.isDone() && this.engine.events().any()) {
			Duration took = Duration.ofNanos(System.nanoTime() - this.startedNanos);
			this.engine.events().tell((listener) -> listener.notAcquired(this.key, took, failure));
		}
	}

	/**
	 * Tells the listeners that the acquisition got its lease, before the caller has it so
	 * that its release is told after.
	 */
	void tellAcquired() {
		if (this.engine.events().any()) {
			Duration took = Duration.ofNanos(System.nanoTime() - this.startedNanos);
			this.engine.events().tell((listener) -> listener.acquired(this.key, took));
		}
	}

}
