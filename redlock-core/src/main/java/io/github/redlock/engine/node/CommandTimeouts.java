package io.github.redlock.engine.node;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;

/**
 * The timeout a script call carries ({@link ScriptArgs#timeoutNanos}: an acquisition's or
 * an extension's, shorter than the node timeout for a short TTL), else the node timeout,
 * for every command but a {@code TIME}, which only {@link NodeSilence} sends as its
 * probe: it waits as long as {@link NodeSilence#probeTimeout}, so that a node that
 * answers late on a busy machine is not taken for silent again; and but a deletion
 * ({@link Script#deletes()}), which Lettuce keeps for as long as any entry it deletes can
 * live (the maximum TTL). Lettuce never writes a command that timed out before its turn:
 * with the node timeout, a release handed to an I/O thread that a loaded machine does not
 * run for longer than that would be dropped, and the lock would stay on the node until
 * its TTL. Whoever waits for a deletion still hears of it within the node timeout
 * ({@link DeletionReply}). A cluster master's check ({@link SlotCheck}) sends a script
 * per slot it owns, thousands, which a loaded server may not answer within the node
 * timeout: they wait as long as a probe, since nothing counts on the master before its
 * check ends.
 *
 * @author redlock contributors
 */
final class CommandTimeouts extends TimeoutOptions.TimeoutSource {

	/**
	 * Set while this thread hands Lettuce a deletion: Lettuce asks for a command's
	 * timeout on the thread that sends it.
	 */
	private static final ThreadLocal<boolean[]> DELETING = ThreadLocal.withInitial(() -> new boolean[1]);

	/**
	 * Marks this thread as handing Lettuce a deletion, or no longer: a flag in a
	 * per-thread array, as a set and remove of the thread-local made a map entry for
	 * every deletion sent.
	 */
	static void deleting(boolean deleting) {
		DELETING.get()[0] = deleting;
	}

	/** Set while this thread hands Lettuce a cluster master's slot checks. */
	private static final ThreadLocal<boolean[]> CHECKING = ThreadLocal.withInitial(() -> new boolean[1]);

	/**
	 * Marks this thread as handing Lettuce a cluster master's slot checks, or no longer.
	 */
	static void checking(boolean checking) {
		CHECKING.get()[0] = checking;
	}

	private final long nodeTimeoutNanos;

	private final long probeTimeoutNanos;

	private final long deletionTimeoutNanos;

	CommandTimeouts(Duration nodeTimeout, Duration probeTimeout, Duration deletionTimeout) {
		this.nodeTimeoutNanos = nodeTimeout.toNanos();
		this.probeTimeoutNanos = probeTimeout.toNanos();
		this.deletionTimeoutNanos = deletionTimeout.toNanos();
	}

	@Override
	public long getTimeout(RedisCommand<?, ?, ?> command) {
		if (DELETING.get()[0]) {
			return this.deletionTimeoutNanos;
		}
		if (command != null && command.getArgs() instanceof ScriptArgs args && args.timeoutNanos() > 0) {
			return args.timeoutNanos();
		}
		return ((command != null && command.getType() == CommandType.TIME) || CHECKING.get()[0])
				? this.probeTimeoutNanos : this.nodeTimeoutNanos;
	}

	@Override
	public TimeUnit getTimeUnit() {
		return TimeUnit.NANOSECONDS;
	}

}
