package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.redlock.LockAcquisitionException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One call to acquire a lock: attempts on every node at once, retried after a jittered
 * delay until the wait time is spent.
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
 * <b>When {@code n} lost its counter.</b> It restarted empty, was flushed, or the counter
 * expired ({@code fencingRetention} after its last write, each acquisition and extension
 * writing it). Then {@code n} starts again from its clock, and the argument rests on
 * clocks: every counter began at some node's clock reading and has grown by one per
 * acquisition since, so {@code T <= c0 + A}, where {@code c0} is the clock reading (in
 * microseconds, rounded down to the second) at which that counter began, at time
 * {@code t0}, and {@code A} the acquisitions since. The restart reading at time
 * {@code t2} is at least {@code c0 + (t2 - t0)}, minus the skew {@code s} between the two
 * nodes' clocks and minus one second of rounding, which exceeds {@code T} when
 * {@code (t2 - t0) - A > s + 1s}. With the restart guard on, a node that lost its data
 * sits out for {@code maxTtl} before it can be in a quorum again, and an expired counter
 * had {@code fencingRetention} without writes. So tokens strictly increase under these
 * assumptions:
 * <ol>
 * <li>the clock skew between nodes, plus one second, is below {@code maxTtl} (restarts)
 * and below {@code fencingRetention} (expiry), and no node's clock is set back by more
 * than that (the builder refuses a {@code fencingRetention} under two seconds);
 * <li>one key is acquired fewer than a million times a second on average since its
 * counter began (counters grow by one per acquisition, clocks by a million a second);
 * <li>with the restart guard off, a restarted node's clock is not behind the others by
 * more than the time since the key's counter began.
 * </ol>
 * Two leases are never both held at once, and a later one has a larger token, so no two
 * holders ever share a token.
 *
 * @author redlock contributors
 */
final class Acquisition {

	private static final Log logger = LogFactory.getLog(Acquisition.class);

	private final RedlockRegistry registry;

	private final String key;

	private final String[] keys;

	private final long ttlNanos;

	private final String ttlMillis;

	private final Duration waitTime;

	private final long deadline;

	private final CompletableFuture<RedlockLease> result = new CompletableFuture<>();

	private int attempts;

	private final long startedNanos = System.nanoTime();

	Acquisition(RedlockRegistry registry, String key, Duration ttl, Duration waitTime) {
		this.registry = registry;
		this.key = key;
		this.keys = registry.nodeKeys(key);
		this.ttlNanos = ttl.toNanos();
		this.ttlMillis = String.valueOf(ttl.toMillis());
		this.waitTime = waitTime;
		this.deadline = registry.clock().nanoTime() + waitTime.toNanos();
	}

	CompletableFuture<RedlockLease> result() {
		return this.result;
	}

	void attempt() {
		if (this.result.isDone()) {
			return;
		}
		this.attempts++;
		String value = this.registry.values().next();
		long start = this.registry.clock().nanoTime();
		QuorumCall call = QuorumCall.start(this.registry.nodes(), this.registry.quorum(), (reply) -> reply > 0,
				(node) -> node.eval(Script.ACQUIRE, this.keys, value, this.ttlMillis, this.registry.retentionMillis(),
						node.marker()));
		call.decision().thenAccept((decided) -> {
			if (decided.succeeded()) {
				fence(decided, value, start);
			}
			else {
				failed(decided, value, null);
			}
		});
	}

	private void fence(QuorumCall call, String value, long start) {
		long[] tokens = call.agreedValues();
		long highest = 0;
		for (long token : tokens) {
			highest = Math.max(highest, token);
		}
		int atHighest = 0;
		List<NodeClient> behind = new ArrayList<>();
		int[] agreedNodes = call.agreedNodes();
		for (int i = 0; i < tokens.length; i++) {
			if (tokens[i] == highest) {
				atHighest++;
			}
			else {
				behind.add(this.registry.nodes().get(agreedNodes[i]));
			}
		}
		int missing = this.registry.quorum() - atHighest;
		this.registry.countAcquisition(missing > 0);
		if (missing <= 0) {
			acquired(call, value, start, highest);
			return;
		}
		long token = highest;
		String tokenText = String.valueOf(token);
		QuorumCall raise = QuorumCall.start(behind, missing, (reply) -> reply == 1,
				(node) -> node.eval(Script.RAISE_FENCE, this.keys, value, tokenText, this.registry.retentionMillis()));
		raise.decision().thenAccept((decided) -> {
			if (decided.succeeded()) {
				acquired(call, value, start, token);
			}
			else {
				failed(call, value, "the fencing counters could not be aligned on a quorum");
			}
		});
	}

	private void acquired(QuorumCall call, String value, long start, long token) {
		long now = this.registry.clock().nanoTime();
		long validUntil = this.registry.validity().validUntil(start, this.ttlNanos);
		if (now >= validUntil) {
			failed(call, value, "a quorum agreed only after " + TimeUnit.NANOSECONDS.toMillis(now - start)
					+ "ms, which leaves no validity of the " + this.ttlMillis + "ms ttl once drift is allowed for");
			return;
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Acquired '" + this.key + "' token " + token + " start " + start + " now " + now
					+ " validUntil " + validUntil + " nodes " + Arrays.toString(call.agreedNodes()) + " counters "
					+ Arrays.toString(call.agreedValues()));
		}
		RedlockLease lease = this.registry
			.register(new RedlockLease(this.registry, this.key, this.keys, value, token, start, validUntil, call));
		if (this.registry.hasListeners()) {
			// told before the caller has the lease, so that its release is told after
			Duration took = Duration.ofNanos(System.nanoTime() - this.startedNanos);
			this.registry.tell((listener) -> listener.acquired(this.key, took));
		}
		if (!this.result.complete(lease)) {
			lease.releaseAsync(); // the caller gave up meanwhile
		}
	}

	private void failed(QuorumCall call, String value, String note) {
		this.registry.releaseEverywhere(this.keys, value, call);
		if (this.result.isDone()) {
			return;
		}
		long now = this.registry.clock().nanoTime();
		long left = this.deadline - now;
		if (left > 0) {
			long delay = this.registry.settings().retryDelay().toNanos();
			long jitter = this.registry.settings().retryJitter().toNanos();
			if (jitter > 0) {
				delay += ThreadLocalRandom.current().nextLong(jitter);
			}
			try {
				this.registry.scheduler().schedule(this::attempt, Math.min(delay, left), TimeUnit.NANOSECONDS);
				return;
			}
			catch (RejectedExecutionException ex) {
				this.result.completeExceptionally(new IllegalStateException("The LockRegistry was closed"));
				return;
			}
		}
		int attemptsMade = this.attempts;
		call.completion().thenRun(() -> {
			int agreed = call.countAnswered((reply) -> reply > 0);
			LockAcquisitionException failure = new LockAcquisitionException(this.key, this.waitTime, attemptsMade,
					agreed, this.registry.quorum(), this.registry.nodes().size(),
					call.failures((reply) -> "by another owner for " + (-reply - 1) + "ms more"), note);
			if (!this.result.isDone() && this.registry.hasListeners()) {
				Duration took = Duration.ofNanos(System.nanoTime() - this.startedNanos);
				this.registry.tell((listener) -> listener.notAcquired(this.key, took, failure));
			}
			this.result.completeExceptionally(failure);
		});
	}

}
