package io.github.redlock.engine.lease;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.stream.Collectors;

import io.github.redlock.Durations;
import io.github.redlock.Lease;
import io.github.redlock.LeaseListener;
import io.github.redlock.LockKeys;
import io.github.redlock.LockLostException;
import io.github.redlock.NodeFailure;
import io.github.redlock.RedlockException;
import io.github.redlock.engine.LockObserver;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.quorum.MonotonicClock;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import io.github.redlock.engine.quorum.Validity;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A lock held on a quorum: its value, fencing token and validity, its extension and
 * release, and the signal when it is lost. Its {@link LeaseWatchdog} keeps it extended
 * and notices when its validity runs out.
 * <p>
 * Validity is tracked on the monotonic clock: the lease is held until
 * {@code start + ttl - drift} of the last acquisition or extension that reached a quorum
 * in time. An extension that reaches a quorum only after that moment does not count,
 * because another owner may have acquired the lock in between.
 * <p>
 * <b>Invariants.</b> A lease leaves {@code HELD} (or {@code LINGERING}, released with a
 * minimum hold) only by a {@code compareAndSet} of its state, and only the thread that
 * wins it tells the end: listeners, the observer, its line (through its {@link LeaseOps},
 * which end the lease's {@code LineHold} as it ended) and the registry's events. So an
 * end is told exactly once, whichever of release, loss, an end asked for or a stop comes
 * first. Validity is lowered before an extension is sent and raised only by one that
 * reached a quorum in time; extensions run one at a time (under {@code extensions}).
 * <p>
 * One piece, and longer than most classes of the engine, because extension, release and
 * the lost signal all read and change that same state and validity, which only this class
 * may touch; splitting them would put the state machine in two places.
 *
 * @author redlock contributors
 */
public final class RedlockLease implements Lease {

	private static final Log logger = LogFactory.getLog(RedlockLease.class);

	private static final int HELD = 0;

	private static final int RELEASED = 1;

	private static final int LOST = 2;

	/** Released by its holder, but left on the nodes until its end. */
	private static final int LINGERING = 3;

	private static final long NO_END = Long.MAX_VALUE;

	private final EngineContext engine;

	private final NodeFleet fleet;

	private final String key;

	private final String value;

	/** The value's secret part, which alone is sent to extend and release. */
	private final String secret;

	private final long token;

	/** How its kind acts on the nodes and in this registry. */
	private final LeaseOps ops;

	private final long holdDeadline;

	private final QuorumCall acquisition;

	private final AtomicInteger state = new AtomicInteger(HELD);

	private final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();

	private volatile long validUntil;

	/**
	 * The monotonic time at which the lease ends as asked ({@link #holdFor},
	 * {@link #releaseAfter}), or {@link #NO_END}.
	 */
	private volatile long end = NO_END;

	/**
	 * Whether the last extension that reached a quorum set the lock to expire at
	 * {@link #end}, so that nothing more needs to be sent.
	 */
	private volatile boolean endApplied;

	private final LeaseWatchdog watchdog;

	/** Guards {@link #lastExtension}: extensions are sent one at a time. */
	private final Object extensions = new Object();

	/** Completes when the extension sent last has been answered by every node. */
	private CompletableFuture<Void> lastExtension = CompletableFuture.completedFuture(null);

	private volatile String lostReason;

	private final long acquiredNanos;

	private static final AtomicReferenceFieldUpdater<RedlockLease, LockObserver.Holding> OBSERVATION = AtomicReferenceFieldUpdater
		.newUpdater(RedlockLease.class, LockObserver.Holding.class, "observation");

	/** Hears how the hold ends, if the registry has a {@link LockObserver}. */
	private volatile LockObserver.Holding observation;

	/**
	 * Makes a lease that extends and releases itself as its kind's {@code ops} say.
	 */
	public RedlockLease(EngineContext engine, String key, String value, long token, long startNanos, long validUntil,
			QuorumCall acquisition, LeaseOps ops) {
		this.ops = ops;
		this.engine = engine;
		this.fleet = engine.fleet();
		this.key = key;
		this.value = value;
		this.secret = LockValues.secret(value);
		this.token = token;
		this.holdDeadline = startNanos + engine.settings().maxHold().toNanos();
		this.acquiredNanos = System.nanoTime();
		this.validUntil = validUntil;
		this.acquisition = acquisition;
		this.watchdog = new LeaseWatchdog(engine, this);
		this.watchdog.watchExpiry();
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public long fencingToken() {
		return this.token;
	}

	public String value() {
		return this.value;
	}

	@Override
	public boolean isHeld() {
		return this.state.get() == HELD && this.engine.clock().nanoTime() < this.validUntil;
	}

	public boolean isLost() {
		return this.state.get() == LOST;
	}

	/**
	 * Returns whether the lease was neither released nor declared lost; it may still have
	 * expired.
	 */
	boolean isActive() {
		return this.state.get() == HELD;
	}

	/**
	 * Returns whether the watchdog still has work: the lease is held, or released but
	 * left on the nodes until its end.
	 */
	boolean isWatched() {
		int current = this.state.get();
		return current == HELD || current == LINGERING;
	}

	boolean isLingering() {
		return this.state.get() == LINGERING;
	}

	/**
	 * Returns whether an end was asked for.
	 */
	boolean hasEnd() {
		return this.end != NO_END;
	}

	/**
	 * Returns whether the lock was set to expire at its end on a quorum: the watchdog
	 * need not extend it again.
	 */
	boolean endApplied() {
		return this.endApplied;
	}

	/**
	 * Returns the monotonic time until which the lease is valid.
	 */
	long validUntil() {
		return this.validUntil;
	}

	/**
	 * Returns the monotonic time past which no extension may keep the lease.
	 */
	long holdDeadline() {
		return this.holdDeadline;
	}

	@Override
	public Duration remainingValidity() {
		if (this.state.get() != HELD) {
			return Duration.ZERO;
		}
		return Duration.ofNanos(Math.max(0, this.validUntil - this.engine.clock().nanoTime()));
	}

	@Override
	public boolean extend(Duration ttl) {
		if (this.state.get() != HELD) {
			this.engine.checkTtl(ttl);
			return false;
		}
		return extendNow(ttl).extended();
	}

	@Override
	public boolean holdFor(Duration duration) {
		if (duration == null || duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException("duration must be positive, was " + Durations.format(duration));
		}
		long now = this.engine.clock().nanoTime();
		long until = now + duration.toNanos();
		if (until - this.holdDeadline > 0) {
			throw new IllegalArgumentException("Lock '" + LockKeys.printable(this.key) + "' cannot be held for "
					+ Durations.format(duration) + ": that ends past its maximum hold time of "
					+ Durations.format(this.engine.settings().maxHold())
					+ " from the acquisition; hold it for less or raise the maximum hold time (redlock.max-hold)");
		}
		if (!isActive()) {
			return false;
		}
		ExtendOutcome outcome = await(endAt(until));
		if (outcome.extended()) {
			this.watchdog.keepUntilEnd();
		}
		return outcome.extended();
	}

	@Override
	public void releaseAfter(Duration delay) {
		long now = this.engine.clock().nanoTime();
		long delayNanos = (delay != null) ? delay.toNanos() : 0;
		if (delayNanos < 1_000_000 || !isHeld() || !this.state.compareAndSet(HELD, LINGERING)) {
			release();
			return;
		}
		// released from the holder's side: gone from the held leases, so that closing
		// the registry leaves it to expire rather than deleting it
		this.engine.leases().remove(this);
		if (this.engine.events().any()) {
			Duration held = heldFor();
			this.engine.events().tell((listener) -> listener.released(this.key, held));
		}
		ExtendOutcome outcome = await(endAt(now + Math.min(delayNanos, this.holdDeadline - now)));
		if (outcome.extended()) {
			this.watchdog.keepUntilEnd();
		}
		else if (isLingering() && logger.isDebugEnabled()) {
			// not deleted at an end that had come already, nor lost
			logger.debug("Lock '" + LockKeys.printable(this.key) + "' could not be set to expire in "
					+ Durations.format(delay) + "; it expires as its last extension set it: " + outcome.failure());
		}
	}

	/**
	 * Sets the end and sends the extension that makes the lock expire at it, or a maximum
	 * TTL from now if that comes first.
	 */
	private CompletableFuture<ExtendOutcome> endAt(long until) {
		this.end = until;
		this.endApplied = false;
		return extendAsync(this.engine.settings().maxTtl().toNanos());
	}

	private ExtendOutcome await(CompletableFuture<ExtendOutcome> outcome) {
		try {
			return outcome.get(this.fleet.callBoundNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedlockException("Interrupted while extending lock '" + LockKeys.printable(this.key) + "'", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			return new ExtendOutcome(false, 0, "no quorum answered in time (" + ex + ")");
		}
	}

	/**
	 * Extends the lease on every node, waiting at most one call bound.
	 */
	public ExtendOutcome extendNow(Duration ttl) {
		long ttlNanos = this.engine.checkTtl(ttl).toNanos();
		return await(extendAsync(ttlNanos));
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
	CompletableFuture<ExtendOutcome> extendAsync(long requestedTtlNanos) {
		CompletableFuture<Void> sent = new CompletableFuture<>();
		CompletableFuture<Void> previous;
		synchronized (this.extensions) {
			previous = this.lastExtension;
			this.lastExtension = sent;
		}
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
			return deleteAtEnd(sent);
		}
		if (!reachesEnd && ttlNanos < this.engine.minimumTtlNanos()) {
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
		String[] args = { this.secret, ttlMillis, this.engine.retentionMillis() };
		QuorumCall call = this.fleet.quorumCall((reply) -> reply == 1,
				(node, index, replies) -> this.ops.extend(node, args, index, replies));
		CompletableFuture<ExtendOutcome> outcome = call.decision().thenApply((decided) -> {
			long now = clock.nanoTime();
			if (decided.succeeded()) {
				if (reachesEnd && this.end == askedEnd) {
					// a quorum still held this lease's value and now expires it at the
					// end
					this.endApplied = true;
				}
				if (now < this.validUntil && isWatched()) {
					this.validUntil = this.engine.validity().validUntil(start, ttlNanos);
					if (logger.isDebugEnabled()) {
						logger.debug("Extended '" + LockKeys.printable(this.key) + "' token " + this.token + " start "
								+ start + " now " + now + " validUntil " + this.validUntil + " nodes "
								+ Arrays.toString(decided.agreedNodes()));
					}
					return new ExtendOutcome(true, decided.agreedCount(), null);
				}
				this.watchdog.checkExpiry();
				return new ExtendOutcome(false, decided.agreedCount(), reachesEnd ? "it reached its end"
						: "the extension reached a quorum only after the lease had expired");
			}
			int nodes = this.fleet.size();
			int notOurs = decided.countAnswered((reply) -> reply == 0);
			int pending = decided.pending();
			String failures = describe(decided.failures((reply) -> "it holds another owner's value or none"))
					+ ((pending > 0) ? "; " + pending + " more not heard from when these decided it" : "");
			if (notOurs > nodes - this.fleet.quorum()) {
				markLost("it is no longer held on " + notOurs + " of " + nodes
						+ " nodes (expired or taken by another owner): " + failures);
			}
			return new ExtendOutcome(false, decided.agreedCount(), decided.agreedCount() + " of " + nodes
					+ " nodes agreed to extend it, " + this.fleet.quorum() + " needed: " + failures);
		});
		// the next extension goes out once every node answered AND this one's outcome was
		// applied: completing on the answers alone let the next run (synchronously, on
		// the thread that completed them) between the answers and this handler, so a
		// stalled thread could apply this validity over the next one's shorter validity
		// (ConcurrentExtensionIntegrationTests failed so in CI: 28.9 s believed, 4.7 s
		// on the nodes)
		CompletableFuture.allOf(outcome, call.completion()).whenComplete((ignored, ex) -> sent.complete(null));
		return outcome;
	}

	/**
	 * Ends the lease at an end that has come (under a millisecond away, too soon for an
	 * expiry the nodes can set): deletes the lock on every node, as a release does, and
	 * completes {@code sent} once every node answered. Leaving it would keep it on the
	 * nodes for the TTL of its last extension, up to a maximum TTL.
	 */
	private CompletableFuture<ExtendOutcome> deleteAtEnd(CompletableFuture<Void> sent) {
		int previous = this.state.get();
		if ((previous != HELD && previous != LINGERING) || !this.state.compareAndSet(previous, RELEASED)) {
			sent.complete(null);
			return CompletableFuture.completedFuture(new ExtendOutcome(false, 0, "it is no longer held"));
		}
		this.watchdog.cancel();
		this.engine.leases().remove(this);
		if (previous == HELD && this.engine.events().any()) {
			Duration held = heldFor();
			this.engine.events().tell((listener) -> listener.released(this.key, held));
		}
		if (previous == HELD && this.observation != null) {
			endObservation(null);
		}
		// the key's line in this registry counts the holder until a quorum deleted it
		releaseEverywhere(this::released, null).whenComplete((ignored, ex) -> sent.complete(null));
		return CompletableFuture.completedFuture(new ExtendOutcome(false, 0, "it reached its end"));
	}

	private static String describe(List<NodeFailure> failures) {
		return failures.stream().map(NodeFailure::toString).collect(Collectors.joining("; "));
	}

	/**
	 * Keeps the lease extended to {@code ttl} every third of it until the returned handle
	 * withdraws the demand, or the lease is released, lost, or reaches the maximum hold
	 * time.
	 * @return withdraws the demand
	 */
	public Runnable autoExtend(Duration ttl) {
		return this.watchdog.autoExtend(ttl);
	}

	/**
	 * Returns whether work runs under the lease, as far as the registry can tell: it is
	 * auto-extended, or held until an end.
	 */
	boolean isKeptAlive() {
		return this.watchdog.isKeptAlive();
	}

	public void markLost(String reason) {
		if (this.state.compareAndSet(LINGERING, RELEASED)) {
			// its holder let it go already: only its minimum hold is cut short
			ended();
			logger.info("Lock '" + LockKeys.printable(this.key)
					+ "' may be acquired again before the end of the hold asked for when it was released: " + reason);
			return;
		}
		if (!this.state.compareAndSet(HELD, LOST)) {
			return;
		}
		this.lostReason = reason;
		LockLostException cause = new LockLostException(this.key, reason);
		ended();
		logger.warn(cause.getMessage());
		if (!this.listeners.isEmpty()) {
			// off the I/O and scheduler threads: a listener may well release the lease,
			// which waits for the nodes' replies
			this.engine.callbacks().execute(() -> {
				for (LeaseListener listener : this.listeners) {
					// whoever removes a listener tells it: here, or addListener
					if (this.listeners.remove(listener)) {
						notify(listener, cause);
					}
				}
			});
		}
		if (this.engine.events().any()) {
			Duration held = heldFor();
			this.engine.events().tell((listener) -> listener.lost(this.key, held));
		}
		if (this.observation != null) {
			endObservation(cause);
		}
	}

	/**
	 * Tells {@code holding} how this hold ends; at once if it has ended already.
	 */
	public void observe(LockObserver.Holding holding) {
		this.observation = holding;
		// set before reading the state, as markLost and release set the state before
		// reading it: one of them at least sees the other
		int current = this.state.get();
		if (current != HELD) {
			endObservation((current == LOST || this.lostReason != null) ? lossCause() : null);
		}
	}

	private void endObservation(LockLostException lost) {
		LockObserver.Holding holding = OBSERVATION.getAndSet(this, null);
		if (holding == null) {
			return;
		}
		try {
			if (lost != null) {
				holding.lost(lost);
			}
			else {
				holding.released();
			}
		}
		catch (RuntimeException ex) {
			logger.warn("LockObserver failed for lock '" + LockKeys.printable(this.key) + "'", ex);
		}
	}

	private Duration heldFor() {
		return Duration.ofNanos(System.nanoTime() - this.acquiredNanos);
	}

	private void notify(LeaseListener listener, LockLostException cause) {
		try {
			listener.leaseLost(this, cause);
		}
		catch (RuntimeException ex) {
			logger.warn("Lease listener failed for lock '" + LockKeys.printable(this.key) + "'", ex);
		}
	}

	/**
	 * Ends the lease at the end asked for: quietly, since its holder asked for it.
	 */
	void endAsAsked() {
		if (this.state.compareAndSet(LINGERING, RELEASED)) {
			ended();
			return;
		}
		if (!this.state.compareAndSet(HELD, RELEASED)) {
			return;
		}
		ended();
		if (logger.isDebugEnabled()) {
			logger.debug("Lock '" + LockKeys.printable(this.key) + "' reached the end asked for and expired");
		}
		if (this.engine.events().any()) {
			Duration held = heldFor();
			this.engine.events().tell((listener) -> listener.released(this.key, held));
		}
	}

	/**
	 * Stops watching a lease that ended without a release (lost, or at the end asked
	 * for), forgets it (a lingering one was forgotten when released), and wakes the key's
	 * line in this registry.
	 */
	private void ended() {
		this.watchdog.cancel();
		this.engine.leases().remove(this);
		holderGone();
	}

	/**
	 * Tells whom the end of this lease concerns: the key's line in this registry.
	 */
	private void holderGone() {
		this.ops.ended();
	}

	/**
	 * Tells whom the release of this lease concerns, once a quorum of nodes is done with
	 * it: the key's line in this registry, whose next waiter waits its turn when a node
	 * named another process's line and queued this one behind it.
	 */
	private void released(boolean queuedBehind) {
		this.ops.released(queuedBehind);
	}

	/**
	 * Deletes the lease's value on every node with its release script.
	 * @param warnKey the key to warn with if no quorum could be freed, or {@code null}
	 */
	private CompletableFuture<Boolean> releaseEverywhere(NodeFleet.AfterQuorum afterQuorum, String warnKey) {
		return this.ops.release(this.fleet, this.secret, this.token, this.acquisition, afterQuorum, warnKey);
	}

	/**
	 * Returns why the lease is not held, for callers that find it gone.
	 */
	public LockLostException lossCause() {
		String reason = this.lostReason;
		return new LockLostException(this.key,
				(reason != null) ? reason : "its validity ran out before the work under it finished");
	}

	@Override
	public void addListener(LeaseListener listener) {
		if (isActive() && this.engine.clock().nanoTime() - this.validUntil >= 0) {
			// its validity ran out and the registry's timer has not looked yet: decide
			// now what the timer would (lost, or ended as asked), so that a listener
			// added to a lease already lost is told at once, as documented
			this.watchdog.checkExpiry();
		}
		this.listeners.add(listener);
		if (this.lostReason != null && this.listeners.remove(listener)) {
			notify(listener, lossCause());
		}
	}

	@Override
	public void release() {
		CompletableFuture<Boolean> release = releaseOnNodes();
		try {
			release.get(this.fleet.callBoundNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			// the release is on its way; keys expire in any case
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.debug("Release of lock '" + LockKeys.printable(this.key) + "' did not complete on a quorum", ex);
		}
	}

	/**
	 * Deletes the lock on every node where it still holds this lease's value, without
	 * blocking.
	 * @return a future that completes, off Lettuce's I/O threads, once every node
	 * answered or timed out
	 */
	@Override
	public CompletableFuture<Void> releaseAsync() {
		CompletableFuture<Void> released = new CompletableFuture<>();
		releaseOnNodes().whenCompleteAsync((ignored, ex) -> released.complete(null), this.engine.callbacks());
		return released;
	}

	/**
	 * Deletes the lock on every node where it still holds this lease's value, and logs a
	 * warning if fewer than a quorum of nodes could be freed of it.
	 * @return a future that completes, on the thread of a reply, once a quorum of nodes
	 * is free of the lock ({@link NodeFleet#releaseEverywhere}: the others' deletions go
	 * on in the background), or once every node answered or timed out when a quorum could
	 * not be freed
	 */
	private CompletableFuture<Boolean> releaseOnNodes() {
		int previous;
		do {
			previous = this.state.get();
			if (previous == RELEASED || previous == LINGERING) {
				// a lingering lease was released by its holder already
				return CompletableFuture.completedFuture(true);
			}
		}
		while (!this.state.compareAndSet(previous, RELEASED));
		this.watchdog.cancel();
		this.engine.leases().remove(this);
		// a lost lease was reported as lost: releasing it afterwards is only clean-up
		if (previous == HELD && this.engine.events().any()) {
			Duration held = heldFor();
			this.engine.events().tell((listener) -> listener.released(this.key, held));
		}
		if (previous == HELD && this.observation != null) {
			endObservation(null);
		}
		// the next waiter of this registry tries once a quorum is free of the lock; a
		// lost lease told the line when it was lost
		// a held lease's release warns when it could not free a quorum (NodeFleet)
		return (previous == HELD) ? releaseEverywhere(this::released, this.key) : releaseEverywhere(null, null);
	}

	@Override
	public void close() {
		release();
	}

	@Override
	public String toString() {
		String status = switch (this.state.get()) {
			case HELD -> isHeld() ? "held" : "expired";
			case LOST -> "lost";
			case LINGERING -> "released, held until its end";
			default -> "released";
		};
		return "Lease[key=" + LockKeys.printable(this.key) + ", token=" + this.token + ", " + status + "]";
	}

	/**
	 * The outcome of one extension.
	 *
	 * @param extended whether it reached a quorum in time
	 * @param agreed how many nodes agreed
	 * @param failure why not, or {@code null}
	 */
	public record ExtendOutcome(boolean extended, int agreed, String failure) {
	}

}
