package io.github.redlock.engine.lease;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import io.github.redlock.LockKeys;
import io.github.redlock.NodeFailure;
import io.github.redlock.RedlockException;
import io.github.redlock.engine.lease.RedlockLease.ExtendOutcome;
import io.github.redlock.engine.quorum.MonotonicClock;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One lease's validity and its extensions on the nodes, and the end its holder asked for
 * ({@link RedlockLease#holdFor}, {@link RedlockLease#releaseAfter}), which an extension
 * sets on the nodes.
 * <p>
 * The last part of a {@link RedlockLease} below its public face, after
 * {@link LeaseState}: a superclass rather than a field, so that a lease is one object,
 * each of its fields held once, since the bytes of a lock cycle and the heap of each held
 * lease count.
 * <p>
 * Validity is tracked on the monotonic clock: the lease is held until
 * {@code start + ttl - drift} of the last acquisition or extension that reached a quorum
 * in time. An extension that reaches a quorum only after that moment does not count,
 * because another owner may have acquired the lock in between.
 * <p>
 * <b>Invariants:</b> validity is lowered before an extension is sent and raised only by
 * one that reached a quorum in time; extensions run one at a time (each takes the place
 * of {@link #lastExtension} by one {@code getAndSet}), each sent once the one before was
 * answered on every node and its outcome applied. An extension changes the lease's state
 * only through {@link LeaseState} (a loss, or the deletion at an end that has come).
 *
 * @author redlock contributors
 */
abstract sealed class LeaseExtensions extends LeaseState permits RedlockLease {

	private static final Log logger = LogFactory.getLog(LeaseExtensions.class);

	private static final long NO_END = Long.MAX_VALUE;

	/**
	 * What {@link #lastExtension} is before the first extension: complete, and never
	 * completed again, so one serves every lease.
	 */
	private static final CompletableFuture<Void> NONE_SENT = CompletableFuture.completedFuture(null);

	private static final VarHandle LAST_EXTENSION;

	static {
		try {
			LAST_EXTENSION = MethodHandles.lookup()
				.findVarHandle(LeaseExtensions.class, "lastExtension", CompletableFuture.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/** The monotonic time past which no extension may keep the lease. */
	private final long holdDeadline;

	private volatile long validUntil;

	/**
	 * The monotonic time at which the lease ends as asked ({@link #endAt}), or
	 * {@link #NO_END}.
	 */
	private volatile long end = NO_END;

	/**
	 * Whether the last extension that reached a quorum set the lock to expire at
	 * {@link #end}, so that nothing more needs to be sent.
	 */
	private volatile boolean endApplied;

	/**
	 * Completes when the extension sent last has been answered by every node; swapped by
	 * {@link #LAST_EXTENSION}, so that extensions are sent one at a time.
	 */
	private volatile CompletableFuture<Void> lastExtension = NONE_SENT;

	LeaseExtensions(EngineContext engine, LeaseOps ops, QuorumCall acquisition, long holdDeadline, long validUntil) {
		super(engine, ops, acquisition);
		this.holdDeadline = holdDeadline;
		this.validUntil = validUntil;
	}

	/**
	 * Returns the monotonic time until which the lease is valid.
	 */
	final long validUntil() {
		return this.validUntil;
	}

	/**
	 * Returns the monotonic time past which no extension may keep the lease.
	 */
	final long holdDeadline() {
		return this.holdDeadline;
	}

	/**
	 * Returns whether an end was asked for.
	 */
	final boolean hasEnd() {
		return this.end != NO_END;
	}

	/**
	 * Returns whether the lock was set to expire at its end on a quorum: the watchdog
	 * need not extend it again.
	 */
	final boolean endApplied() {
		return this.endApplied;
	}

	/**
	 * Sets the end and sends the extension that makes the lock expire at it, or a maximum
	 * TTL from now if that comes first.
	 */
	final CompletableFuture<ExtendOutcome> endAt(long until) {
		this.end = until;
		this.endApplied = false;
		return extendAsync(this.engine.settings().maxTtl().toNanos());
	}

	/** Waits for an extension's outcome, at most one call bound. */
	final ExtendOutcome await(CompletableFuture<ExtendOutcome> outcome) {
		try {
			return outcome.get(this.engine.fleet().callBoundNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedlockException("Interrupted while extending lock '" + LockKeys.printable(key()) + "'", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			return new ExtendOutcome(false, 0, "no quorum answered in time (" + ex + ")");
		}
	}

	/**
	 * Extends the lease on every node; decided as soon as a quorum agreed or cannot.
	 * <p>
	 * Extensions of one lease go out one at a time: each is sent once the one before has
	 * been answered, or timed out, on every node. A node applies what it receives in
	 * order, so the last extension sent is the last applied everywhere, and the validity
	 * the client believes is always that of an extension a quorum applied last. Before an
	 * extension to a shorter TTL is sent, the validity believed is lowered to it, since
	 * nodes may apply it before the client hears back.
	 */
	@SuppressWarnings("unchecked")
	final CompletableFuture<ExtendOutcome> extendAsync(long requestedTtlNanos) {
		CompletableFuture<Void> sent = new CompletableFuture<>();
		CompletableFuture<Void> previous = (CompletableFuture<Void>) LAST_EXTENSION.getAndSet(this, sent);
		return previous.thenCompose((ignored) -> {
			CompletableFuture<ExtendOutcome> outcome;
			try {
				outcome = extendNext(requestedTtlNanos, sent);
			}
			catch (RuntimeException ex) {
				sent.complete(null);
				throw ex;
			}
			return outcome;
		});
	}

	/**
	 * Sends one extension, and completes {@code sent} once every node answered it or
	 * timed out.
	 */
	private CompletableFuture<ExtendOutcome> extendNext(long requestedTtlNanos, CompletableFuture<Void> sent) {
		if (!isWatched()) {
			sent.complete(null);
			return CompletableFuture.completedFuture(new ExtendOutcome(false, 0, "it is no longer held"));
		}
		MonotonicClock clock = this.engine.clock();
		long start = clock.nanoTime();
		if (start >= this.validUntil) {
			sent.complete(null);
			this.watchdog.checkExpiry();
			return CompletableFuture.completedFuture(new ExtendOutcome(false, 0, "its validity ran out"));
		}
		long askedEnd = this.end;
		long untilEnd = (askedEnd != NO_END) ? askedEnd - start : Long.MAX_VALUE;
		long bounded = Math.min(requestedTtlNanos, this.holdDeadline - start);
		boolean reachesEnd = untilEnd <= bounded;
		// an end that was asked for may come sooner than an extension could otherwise
		// promise validity for, down to a millisecond
		long ttlNanos = reachesEnd ? untilEnd : bounded;
		if (reachesEnd && this.endApplied) {
			sent.complete(null); // the nodes expire it at the end as set
			return CompletableFuture.completedFuture(new ExtendOutcome(false, 0, "it reached its end"));
		}
		if (reachesEnd && untilEnd < 1_000_000) {
			return endNow(sent);
		}
		if (!reachesEnd && ttlNanos < requestedTtlNanos && ttlNanos < this.engine.validity().holdMarginNanos()) {
			sent.complete(null);
			return CompletableFuture.completedFuture(new ExtendOutcome(false, 0,
					"it reached the maximum hold time of " + this.engine.settings().maxHold()));
		}
		long lowered = this.engine.validity().validUntil(start, ttlNanos);
		if (lowered < this.validUntil) {
			this.validUntil = lowered; // the nodes may apply it before the client hears
			this.watchdog.checkExpirySooner();
		}
		String ttlMillis = String.valueOf(TimeUnit.NANOSECONDS.toMillis(ttlNanos));
		String[] args = { secret(), ttlMillis, this.engine.retentionMillis() };
		QuorumCall call = this.engine.fleet()
			.quorumCall((reply) -> reply == 1, this.engine.validity().callTimeoutNanos(ttlNanos),
					(node, index, replies) -> this.ops.extend(node, args, index, replies));
		CompletableFuture<ExtendOutcome> outcome = call.decision()
			.thenApply((decided) -> decide(decided, start, ttlNanos, reachesEnd, askedEnd));
		// the next extension goes out once every node answered AND this one's outcome was
		// applied: completing on the answers alone let the next run (synchronously, on
		// the thread that completed them) between the answers and this handler, so a
		// stalled thread could apply this validity over the next one's shorter validity
		CompletableFuture.allOf(outcome, call.completion()).whenComplete((ignored, ex) -> sent.complete(null));
		return outcome;
	}

	/**
	 * Applies a decided extension: raises the validity if a quorum agreed in time, or
	 * declares the lease lost when too many nodes no longer hold its value.
	 */
	private ExtendOutcome decide(QuorumCall decided, long start, long ttlNanos, boolean reachesEnd, long askedEnd) {
		long now = this.engine.clock().nanoTime();
		if (decided.succeeded()) {
			if (reachesEnd && this.end == askedEnd) {
				// a quorum still held this lease's value and now expires it at the end
				this.endApplied = true;
			}
			if (now < this.validUntil && isWatched()) {
				this.validUntil = this.engine.validity().validUntil(start, ttlNanos);
				if (logger.isDebugEnabled()) {
					logger.debug("Extended '" + LockKeys.printable(key()) + "' token " + fencingToken() + " start "
							+ start + " now " + now + " validUntil " + this.validUntil + " nodes "
							+ Arrays.toString(decided.agreedNodes()));
				}
				return new ExtendOutcome(true, decided.agreedCount(), null,
						decided.anyFailed(NodeFailure.Kind.TIMEOUT));
			}
			this.watchdog.checkExpiry();
			return new ExtendOutcome(false, decided.agreedCount(), reachesEnd ? "it reached its end"
					: "the extension reached a quorum only after the lease had expired");
		}
		int nodes = this.engine.fleet().size();
		int notOurs = decided.countAnswered((reply) -> reply == 0);
		int pending = decided.pending();
		String failures = describeFailures(decided.failures((reply) -> "it holds another owner's value or none"))
				+ ((pending > 0) ? "; " + pending + " more not heard from when these decided it" : "");
		if (notOurs > nodes - this.engine.fleet().quorum()) {
			lose("it is no longer held on " + notOurs + " of " + nodes + " nodes (expired or taken by another owner): "
					+ failures);
		}
		return new ExtendOutcome(
				false, decided.agreedCount(), decided.agreedCount() + " of " + nodes + " nodes agreed to extend it, "
						+ this.engine.fleet().quorum() + " needed: " + failures,
				decided.anyFailed(NodeFailure.Kind.TIMEOUT));
	}

	/**
	 * Ends the lease at an end that has come (under a millisecond away, too soon for an
	 * expiry the nodes can set): deletes the lock on every node, as a release does
	 * ({@link LeaseState#deleteAtEnd}), and completes {@code sent} once every node
	 * answered. Leaving it would keep it on the nodes for the TTL of its last extension,
	 * up to a maximum TTL.
	 */
	private CompletableFuture<ExtendOutcome> endNow(CompletableFuture<Void> sent) {
		CompletableFuture<Boolean> deleted = deleteAtEnd();
		if (deleted == null) {
			sent.complete(null);
			return CompletableFuture.completedFuture(new ExtendOutcome(false, 0, "it is no longer held"));
		}
		deleted.whenComplete((ignored, ex) -> sent.complete(null));
		return CompletableFuture.completedFuture(new ExtendOutcome(false, 0, "it reached its end"));
	}

	private static String describeFailures(List<NodeFailure> failures) {
		return failures.stream().map(NodeFailure::toString).collect(Collectors.joining("; "));
	}

}
