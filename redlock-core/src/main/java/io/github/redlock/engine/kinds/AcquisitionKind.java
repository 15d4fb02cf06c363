package io.github.redlock.engine.kinds;

import java.time.Duration;

import io.github.redlock.engine.lease.EngineContext;
import io.github.redlock.engine.lease.RedlockLease;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.quorum.QuorumCall;
import io.github.redlock.engine.waiting.LineHold;
import io.github.redlock.engine.waiting.Waiting;
import org.jspecify.annotations.Nullable;

/**
 * What each kind of lock tells {@link AcquisitionLoop}: the scripts it sends for an
 * attempt, its fencing round and its withdrawal, the lease it makes, how it reads a
 * refusal, and the traits that set it apart (a semaphore's slots, whether it queues on
 * the nodes, whether its head backs off). The loop is the same for every kind; a kind is
 * these methods, declared here apart from the loop's state machine so that each reads on
 * its own. A superclass of the loop rather than an object it holds: an acquisition stays
 * one object.
 *
 * @author redlock contributors
 */
abstract class AcquisitionKind extends AttemptOutcomes {

	AcquisitionKind(EngineContext engine, String key, Duration waitTime) {
		super(engine, key, waitTime);
	}

	/** Returns the slot the next attempt asks for: read once as it starts. */
	int nextSlot() {
		return 0;
	}

	/**
	 * Returns the acquire script's arguments that every node gets alike for an attempt
	 * with this value and slot ({@link Attempt#args}), the last of them the fencing
	 * counter's start ({@link io.github.redlock.engine.quorum.NodeFleet#fencingStart}),
	 * the same on every node so that they agree on a new key; a node whose marker is
	 * checked gets the marker and its floor after them ({@link Attempt#argsWithMarker}).
	 */
	abstract String[] args(String value, int slot);

	/** Sends this attempt's acquire script to one node. */
	abstract void send(QuorumMember node, Attempt attempt, int index, NodeClient.ReplyHandler replies);

	/**
	 * Sends the second fencing round to one node: raise its counter to {@code token}
	 * while the attempt's value is still held there, answering 1.
	 */
	abstract void raise(QuorumMember node, Attempt attempt, String secret, String token, int index,
			NodeClient.ReplyHandler replies);

	/** Withdraws a failed attempt's value from every node. */
	abstract void withdraw(QuorumCall call, Attempt attempt);

	/**
	 * Makes the lease of a successful attempt.
	 * @param hold its count in the key's line, which it ends once when it ends, or
	 * {@code null} for a kind not counted there ({@code countedInLine})
	 */
	abstract RedlockLease lease(Attempt attempt, long token, long start, long validUntil, QuorumCall call,
			@Nullable LineHold hold);

	/** Returns the remaining ms of the holder that a negative reply reports. */
	long heldMillis(long reply) {
		return -reply - 1;
	}

	/** Describes a negative reply to an attempt for the failure message. */
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

	/** Returns the lock's key and its queue on the nodes, if this kind queues there. */
	String @Nullable [] queueKeys() {
		return null;
	}

	/**
	 * Returns whether every queueing that finds the key free wakes the head: only a kind
	 * that nothing refuses on a free key (the exclusive lock). A reader can be refused on
	 * a key whose lock value is absent (by a waiting writer's mark), and would try again
	 * and again while the mark lives; so read and write waiters are woken by a free
	 * queueing at most every other attempt.
	 */
	boolean wakesOnEveryFreeQueueing() {
		return false;
	}

	/**
	 * Returns whether the first attempt goes to each node after this registry's last
	 * release of the key there ({@link Waiting.Waiter#released}): a kind whose release
	 * hands the turn to this registry's next waiter at once, before the nodes answered it
	 * (the exclusive lock keeping its turn). A kind whose hold in the line ends only once
	 * a quorum is done with its release (the write lock) needs no such order: the release
	 * was written to every node's connection before the next attempt is.
	 */
	boolean goesAfterOwnRelease() {
		return false;
	}

	/**
	 * Returns whether a queued head of this kind polls ever less often
	 * ({@link Waiting.Waiter#pollBackoff}): not a kind whose refused attempts leave
	 * something only its next attempt renews (a writer's mark, which keeps new readers
	 * out only while its writer polls within its life).
	 */
	boolean backsOff() {
		return true;
	}

	/** Called once when the acquisition fails or is abandoned. */
	void gaveUp() {
	}

}
