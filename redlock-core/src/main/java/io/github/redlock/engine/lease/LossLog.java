package io.github.redlock.engine.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.redlock.LockKeys;
import io.github.redlock.LockLostException;
import io.github.redlock.engine.quorum.MonotonicClock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What a registry's lost leases write to the log: each of the first
 * {@value #LINES_PER_PERIOD} losses of a period of {@value #PERIOD_SECONDS}s its own
 * warning, and the rest of that period one warning at its end that counts them and names
 * a few keys. Losses come in floods (a quorum that lost its data, or a partition, loses
 * every lease at once), and a warning per lease would bury the lines that say what
 * happened to the nodes. Whoever must act on a loss is told of every one: the holder by
 * its {@link io.github.redlock.LockLostException}, listeners by their callbacks.
 * <p>
 * <b>Invariant:</b> each loss reaches the log once, in its own line or in the count of
 * one summary; the owner of how many lines losses write. A summary is written at its
 * period's end by the scheduler, or sooner by the loss that opens the next period, or by
 * {@link #flush()} when the registry closes, whichever comes first.
 *
 * @author redlock contributors
 */
final class LossLog {

	static final int LINES_PER_PERIOD = 10;

	static final int PERIOD_SECONDS = 10;

	private static final long PERIOD_NANOS = TimeUnit.SECONDS.toNanos(PERIOD_SECONDS);

	private static final int KEYS_NAMED = 3;

	// the logger these warnings were always written to, which users' configurations name
	private static final Log logger = LogFactory.getLog(LeaseState.class);

	private final MonotonicClock clock;

	private final ScheduledExecutorService scheduler;

	private long periodStart;

	private int logged;

	private int unlogged;

	private final List<String> unloggedKeys = new ArrayList<>(KEYS_NAMED);

	private @Nullable String firstUnloggedReason;

	LossLog(MonotonicClock clock, ScheduledExecutorService scheduler) {
		this.clock = clock;
		this.scheduler = scheduler;
	}

	/**
	 * Logs a lease's loss, or counts it for its period's summary.
	 * @param key the lease's key
	 * @param reason why it was lost
	 * @param cause what its holder is told, whose message a line of its own is
	 */
	void lost(String key, String reason, LockLostException cause) {
		String summary = null;
		boolean alone;
		boolean schedule = false;
		long delayNanos = 0;
		synchronized (this) {
			long now = this.clock.nanoTime();
			if (this.logged == 0 || now - this.periodStart >= PERIOD_NANOS) {
				summary = takeSummary();
				this.periodStart = now;
				this.logged = 0;
			}
			alone = this.logged < LINES_PER_PERIOD;
			if (alone) {
				this.logged++;
			}
			else {
				if (this.unlogged++ == 0) {
					this.firstUnloggedReason = reason;
					schedule = true;
					delayNanos = this.periodStart + PERIOD_NANOS - now;
				}
				if (this.unloggedKeys.size() < KEYS_NAMED) {
					this.unloggedKeys.add(LockKeys.printable(key));
				}
			}
		}
		if (summary != null) {
			logger.warn(summary);
		}
		if (alone) {
			logger.warn(cause.getMessage());
		}
		if (schedule) {
			try {
				this.scheduler.schedule(this::flush, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				// closing: the registry's close flushes
			}
		}
	}

	/**
	 * Writes the summary of the losses not logged one by one, if there are any.
	 */
	void flush() {
		String summary;
		synchronized (this) {
			summary = takeSummary();
		}
		if (summary != null) {
			logger.warn(summary);
		}
	}

	private @Nullable String takeSummary() {
		if (this.unlogged == 0) {
			return null;
		}
		int others = this.unlogged - this.unloggedKeys.size();
		String summary = this.unlogged + " more locks were lost within " + PERIOD_SECONDS + "s of the "
				+ LINES_PER_PERIOD + " logged above, not logged one by one: "
				+ this.unloggedKeys.stream().map((key) -> "'" + key + "'").collect(Collectors.joining(", "))
				+ ((others > 0) ? " and " + others + " others" : "") + " (the first: " + this.firstUnloggedReason
				+ "). Each holder was told with a LockLostException, and each RegistryListener by lost().";
		this.unlogged = 0;
		this.unloggedKeys.clear();
		this.firstUnloggedReason = null;
		return summary;
	}

}
