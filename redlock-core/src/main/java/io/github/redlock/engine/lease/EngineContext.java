package io.github.redlock.engine.lease;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.github.redlock.Durations;
import io.github.redlock.engine.RedlockSettings;
import io.github.redlock.engine.node.KeyLayout;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.quorum.MonotonicClock;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.Validity;
import io.github.redlock.engine.waiting.Waiting;

/**
 * What an acquisition of any kind and a {@link RedlockLease} work with, built once per
 * registry: its settings, the node fleet and key layout, the monotonic clock and validity
 * arithmetic, the one scheduler thread shared by retries and the watchdog, the threads
 * that run callers' code, lock values, listeners, the live leases, and the counters the
 * registry reports.
 *
 * @author redlock contributors
 */
public final class EngineContext {

	private final RedlockSettings settings;

	private final NodeFleet fleet;

	private final KeyLayout keys;

	private final MonotonicClock clock;

	private final Validity validity;

	private final RegistryEvents events;

	private final ScheduledThreadPoolExecutor scheduler;

	private final Waiting waiting;

	private final ExpiryChecks expiryChecks;

	private final RenewalWindow renewals = new RenewalWindow();

	private final LossLog losses;

	private final ExecutorService callbacks;

	private final LockValues values = new LockValues();

	private final LiveLeases leases = new LiveLeases();

	private final LongAdder acquisitions = new LongAdder();

	private final LongAdder fencingRounds = new LongAdder();

	private final String retentionMillis;

	private final long connectTimeoutNanos;

	public EngineContext(RedlockSettings settings, NodeFleet fleet, KeyLayout keys, MonotonicClock clock,
			Validity validity, RegistryEvents events) {
		this.settings = settings;
		this.fleet = fleet;
		this.keys = keys;
		this.clock = clock;
		this.validity = validity;
		this.events = events;
		this.scheduler = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "redlock-watchdog");
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler.setRemoveOnCancelPolicy(true);
		this.waiting = new Waiting(settings, this.scheduler, clock, fleet::queueStampMillis);
		this.expiryChecks = new ExpiryChecks(clock, this.scheduler);
		this.losses = new LossLog(clock, this.scheduler);
		this.callbacks = callbackThreads();
		this.retentionMillis = String.valueOf(settings.fencingRetention().toMillis());
		this.connectTimeoutNanos = settings.connectTimeout().toNanos();
	}

	/**
	 * Makes the callback threads: at most two per core however many leases there are,
	 * made when needed and ended after a minute unused. A task that arrives after close
	 * runs on the thread that completes it, so that no caller is left waiting.
	 */
	private static ExecutorService callbackThreads() {
		int threads = Math.max(2, 2 * Runtime.getRuntime().availableProcessors());
		AtomicInteger count = new AtomicInteger();
		ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), (task) -> {
					Thread thread = new Thread(task, "redlock-callback-" + count.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				}, (task, rejecting) -> task.run());
		executor.allowCoreThreadTimeOut(true);
		return executor;
	}

	public RedlockSettings settings() {
		return this.settings;
	}

	public NodeFleet fleet() {
		return this.fleet;
	}

	public KeyLayout keys() {
		return this.keys;
	}

	public MonotonicClock clock() {
		return this.clock;
	}

	public Validity validity() {
		return this.validity;
	}

	public RegistryEvents events() {
		return this.events;
	}

	/**
	 * Returns the one scheduler thread that runs retries, extensions and expiry checks.
	 */
	public ScheduledThreadPoolExecutor scheduler() {
		return this.scheduler;
	}

	/**
	 * Returns the one timer that checks whether leases ran out.
	 */
	public ExpiryChecks expiryChecks() {
		return this.expiryChecks;
	}

	/**
	 * Returns the window through which the watchdog sends its renewals.
	 */
	RenewalWindow renewals() {
		return this.renewals;
	}

	/**
	 * Returns what lost leases write to the log.
	 */
	LossLog losses() {
		return this.losses;
	}

	/**
	 * Writes what lost leases have not written to the log yet: for the registry's close.
	 */
	public void flushLossLog() {
		this.losses.flush();
	}

	/**
	 * Returns how long a caller waits for an acquisition's decision at most: its wait
	 * time, a connect, and two rounds of calls to the nodes (the last attempt and its
	 * fencing round).
	 */
	public Duration decisionBound(Duration waitTime) {
		return Duration.ofNanos(decisionBoundNanos(waitTime));
	}

	/**
	 * Returns {@link #decisionBound} in ns, as every blocking acquisition reads it (no
	 * {@code Duration} made per call).
	 */
	public long decisionBoundNanos(Duration waitTime) {
		return waitTime.toNanos() + this.connectTimeoutNanos + 2 * this.fleet.callBoundNanos();
	}

	/**
	 * Returns the threads that complete callers' futures and run their listeners: never
	 * Lettuce's I/O threads, whose blocking would delay every node's replies (the
	 * watchdog's extensions included), nor the scheduler thread. Code that blocks for
	 * long should move to an executor of its own.
	 */
	public ExecutorService callbacks() {
		return this.callbacks;
	}

	public Waiting waiting() {
		return this.waiting;
	}

	public LockValues values() {
		return this.values;
	}

	public LiveLeases leases() {
		return this.leases;
	}

	/**
	 * Returns the fencing counter retention, in milliseconds, as the scripts take it.
	 */
	public String retentionMillis() {
		return this.retentionMillis;
	}

	public void countAcquisition(boolean secondRound) {
		this.acquisitions.increment();
		if (secondRound) {
			this.fencingRounds.increment();
		}
	}

	public long acquisitions() {
		return this.acquisitions.sum();
	}

	public long fencingRounds() {
		return this.fencingRounds.sum();
	}

	/**
	 * Refuses a TTL that no lock can be valid for ({@link Validity#canBeValid}) or that
	 * is above the maximum TTL. A short TTL is served as asked: its calls wait for each
	 * node for a share of it ({@link Validity#callTimeoutNanos}).
	 * @return the TTL
	 * @throws IllegalArgumentException saying what is wrong and what to change
	 */
	public Duration checkTtl(Duration ttl) {
		if (ttl == null || ttl.isNegative() || ttl.isZero()) {
			throw new IllegalArgumentException("ttl must be positive, was " + Durations.format(ttl));
		}
		if (!this.validity.canBeValid(ttl.toNanos())) {
			throw new IllegalArgumentException("ttl " + Durations.format(ttl)
					+ " is too short: no lock of it can be valid, as the clock drift allowed for ("
					+ Durations.format(Duration.ofNanos(this.validity.driftNanos(ttl.toNanos())))
					+ ", 2ms plus driftFactor " + this.settings.driftFactor()
					+ " of the ttl) is at least as long; raise the ttl to at least " + this.validity.leastTtlMillis()
					+ "ms");
		}
		if (ttl.compareTo(this.settings.maxTtl()) > 0) {
			throw new IllegalArgumentException("ttl " + Durations.format(ttl) + " is above the maximum TTL "
					+ Durations.format(this.settings.maxTtl())
					+ ": lower the ttl (the watchdog extends a lease for as long as the work runs) or raise maxTtl,"
					+ " which is also how long a restarted node is kept out of quorums");
		}
		return ttl;
	}

	/**
	 * Refuses a negative or missing wait time.
	 */
	public static void checkWaitTime(Duration waitTime) {
		if (waitTime == null || waitTime.isNegative()) {
			throw new IllegalArgumentException("waitTime must be zero or positive, was " + Durations.format(waitTime));
		}
	}

}
