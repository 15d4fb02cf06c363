package io.github.redlock.engine.waiting;

import java.util.concurrent.TimeUnit;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.node.TurnProtocol;
import io.github.redlock.engine.quorum.MonotonicClock;
import io.github.redlock.engine.quorum.QuorumCall;
import org.jspecify.annotations.Nullable;

/**
 * What the lines of one registry share in the turns that processes take on a key: the id
 * under which the nodes queue them, the release script's queue arguments made once, how
 * long a line keeps the turn, and how long its entry in the nodes' queues lives. Each
 * line's own turn is its {@link LineTurn}.
 *
 * @author redlock contributors
 */
final class Turns {

	/**
	 * The least that a line's entry in the nodes' queues lives ({@link #entryNanos}):
	 * long against any poll, short against the memory of nodes that must not evict.
	 */
	static final long ENTRY_FLOOR_NANOS = TimeUnit.MINUTES.toNanos(1);

	private static final char[] ID_CHARACTERS = "0123456789abcdefghijklmnopqrstuvwxyz".toCharArray();

	/** The registry's clock: turns and queue entries are read on it. */
	final MonotonicClock clock;

	/**
	 * This registry's lines in the nodes' queues of waiting processes: random, so that
	 * registries of other processes never share it, and no secret (release hints carry
	 * it).
	 */
	final String lineId;

	/**
	 * The release script's queue argument of a line without waiters, made once: one
	 * argument rather than five, each of which costs the client a length's text and
	 * encoding per node.
	 */
	final String idleSpec;

	/** The same, of a line without waiters whose release looks at the queues. */
	final String lookSpec;

	/** The same, of a line that keeps the turn. */
	final String keepSpec;

	/**
	 * How long a line's entry in the nodes' queues lives at most ({@link #entryNanos}).
	 */
	private final long entryLifeNanos;

	/**
	 * How long a line keeps the turn: {@link Waiting#TURN_NANOS}, but for tests. A
	 * hand-over within a process costs a quorum's reply; one to another process, its
	 * hints and attempt on top: with every hand-over a turn, sections of 1 ms on one key
	 * across 4 processes ran at 0.81x the bare quorum's retry loop, whose releasing
	 * thread takes the lock again at once. So a turn must span a few sections. It must
	 * also stay short: a waiter whose line just lost the turn waits for every other
	 * process's turn, and the waits of the unluckiest (the p99 of the acquisitions in a
	 * herd of processes) grow with it. At a few milliseconds both hold: the herd keeps
	 * above the bare quorum's sections a second, and its slowest acquisitions wait no
	 * longer than the bare quorum's (docs/benchmarks.md, issue 40's herd).
	 */
	volatile long turnNanos = Waiting.TURN_NANOS;

	/**
	 * The time a line's entry in the nodes' queues is stamped with, in ms: one that every
	 * process reads alike, since the nodes order their queues by it.
	 */
	final LongSupplier stamps;

	Turns(long retryDelayNanos, long retryJitterNanos, MonotonicClock clock, LongSupplier stamps) {
		this.stamps = stamps;
		// twice the longest pause between two polls of a queued head (pollBackoff), each
		// of which queues the line again when a holder refuses it
		long pollNanos = Math.min(retryDelayNanos + retryJitterNanos, Long.MAX_VALUE / 64);
		this.entryLifeNanos = Math.max(ENTRY_FLOOR_NANOS, 32 * pollNanos);
		this.clock = clock;
		char[] id = new char[12];
		for (int i = 0; i < id.length; i++) {
			id[i] = ID_CHARACTERS[ThreadLocalRandom.current().nextInt(ID_CHARACTERS.length)];
		}
		this.lineId = new String(id);
		this.idleSpec = TurnProtocol.idle(this.lineId);
		this.lookSpec = TurnProtocol.look(this.lineId);
		this.keepSpec = TurnProtocol.keep(this.lineId);
	}

	/**
	 * Returns how long the nodes keep a line's entry in their queues, given the longest
	 * that a waiter of the line may still wait: never longer than twice the longest pause
	 * between two polls of its head ({@link Place#pollBackoff}, and at least
	 * {@link #ENTRY_FLOOR_NANOS}), since every poll that a holder refuses queues the line
	 * again and so renews it. Waiting the whole wait time ({@code Lock.lock()} waits a
	 * year), an entry whose process died kept the queue key on nodes that must not evict.
	 */
	long entryNanos(long longestNanos) {
		return Math.min(longestNanos, this.entryLifeNanos);
	}

	/**
	 * Returns the release script's arguments for a lease of this registry on a key: the
	 * secret and the token, then what the script needs to hand the next turn to another
	 * process's line and to queue this line behind it when it still has waiters
	 * ({@link Script#RELEASE}). Notes the call that acquired the lease: the line's next
	 * attempt goes to each node after the release ({@link Place#released}).
	 * @param line the key's line, or {@code null} when it has none
	 */
	String[] releaseArgs(@Nullable Line line, String secret, long token, QuorumCall acquisition) {
		String spec = this.idleSpec;
		if (line != null) {
			synchronized (line) {
				line.released = acquisition;
				long now = this.clock.nanoTime();
				spec = line.turn.releaseSpec(now, line.longestWait(now));
			}
		}
		return new String[] { secret, String.valueOf(token), spec };
	}

	/**
	 * Returns the release script's arguments for a lease of this registry on a key that
	 * was lost before its release: clean-up on the nodes that may still hold its value,
	 * whose line was told of its end when it was lost and hears nothing of this release.
	 * So it never keeps the turn (nobody here would take it, and the processes queued
	 * would wait for their polls), and it looks at the queue, since other processes may
	 * have marked the value: it names the next process queued, and queues this line, in
	 * its place when it is queued already, while it has waiters. It leaves the line's
	 * turn and look flag to the releases of held leases.
	 * @param line the key's line, or {@code null} when it has none
	 */
	String[] lostReleaseArgs(@Nullable Line line, String secret, long token) {
		String spec = this.lookSpec;
		if (line != null) {
			synchronized (line) {
				long now = this.clock.nanoTime();
				spec = line.turn.lostReleaseSpec(now, line.longestWait(now));
			}
		}
		return new String[] { secret, String.valueOf(token), spec };
	}

	/**
	 * Returns whether release arguments keep the turn for the line's next waiter: their
	 * queue argument ({@link Script#RELEASE}) is the one made once for it.
	 */
	boolean keepsTurn(String[] releaseArgs) {
		return releaseArgs[2] == this.keepSpec;
	}

}
