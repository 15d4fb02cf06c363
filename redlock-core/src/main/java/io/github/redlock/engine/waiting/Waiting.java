package io.github.redlock.engine.waiting;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.redlock.engine.RedlockSettings;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.quorum.MonotonicClock;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import org.jspecify.annotations.Nullable;

/**
 * Decides when an acquisition tries the quorum. Nothing else in the engine decides it, so
 * that this is the one place to change how waiters wait.
 * <p>
 * <b>One line per key.</b> The acquisitions of this registry that wait for one key stand
 * in a line, in the order they started (blocking, async and reactive ones alike: a waiter
 * is a few fields and at most one scheduled task, never a thread). Only the head of the
 * line tries the quorum; the others wait their turn without sending anything. The line
 * also counts this registry's leases on the key, each through the {@link LineHold} that
 * its lease keeps: while one is held, the head does not try either (it could only fail),
 * and when it ends (released, lost, or released with a minimum hold), the head is woken
 * at once and tries. It still takes a lease of its own through the quorum, with a new
 * fencing token: nothing is handed over silently.
 * <p>
 * <b>When the holder is elsewhere.</b> A head whose attempt failed tries again after a
 * jittered {@code retryDelay}, never later than the holder's remaining time to live
 * ({@link RetryDelays}) nor than its wait time allows. A {@link ReleaseHints release
 * hint} from the nodes, when another process releases the key, wakes it at once; a
 * wake-up that comes while an attempt is on its way makes it try again as soon as that
 * attempt failed.
 * <p>
 * <b>Processes take turns.</b> A line whose attempt a holder refused queues itself on the
 * nodes, and a release names the first line queued in its hint: only that line tries, so
 * the processes waiting for a key take turns in the order they queued, each keeping the
 * turn for its own waiters for at most {@link #TURN_NANOS}; an entry whose process died
 * goes within minutes. {@link LineTurn} says how.
 * <p>
 * Read and write waiters stand in the same line as exclusive ones (they share the key)
 * and queue the same way, which marks an exclusive holder's value so that its release
 * publishes and names them in their turn. So a reader or writer waiting for exclusive
 * holders of other processes gets the lock once the lines queued before it had their
 * turns, in the order of the clients' clocks: that is what guarantees it progress, as
 * long as each holder releases (an expired holder names nobody: the first poll wins) and
 * hints reach it; a named line that a holder still refuses (a reader refused by a waiting
 * writer's mark) queues again at the back.
 * <p>
 * A waiter that spends its wait time in the line behind others fails without an attempt
 * of its own; an acquisition that may not wait ({@code waitTime} zero, as
 * {@code tryAcquire}) never stands in line: it tries once, at once.
 * <p>
 * <b>The parts.</b> This class is the façade the acquisitions and leases call, and the
 * registry's map of lines; each part states the invariants it keeps at its top:
 * {@link Line} (a key's line: its holders, its release hints, when it leaves the map),
 * {@link LineHold} (a lease's count in its line, ended once), {@link Place} (a waiter's
 * phases: only the head attempts or sleeps), {@link HintGathering} (what a line heard of
 * a release's hints), {@link LineTurn} (a line's turn among processes and its entry in
 * the nodes' queues, with {@link Turns}, what the lines of a registry share in them),
 * {@link Trampoline} (attempts never nest). Each line's state is guarded by its monitor.
 * This class is longer than its parts because it documents the public methods that the
 * kinds and lease layers call.
 *
 * @author redlock contributors
 */
public final class Waiting {

	/**
	 * How long a line keeps the turn for its own waiters, from the acquisition that began
	 * it, while other processes are queued: its releases within that hand the lock to its
	 * next waiter at once ({@link Script#RELEASE} keeps the queue as it is), and the
	 * first release after it names the next process. It bounds how long other processes
	 * wait for their turn by this per process ahead; why this long:
	 * {@link Turns#turnNanos}.
	 */
	static final long TURN_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	private final RetryDelays retryDelays;

	final ScheduledExecutorService scheduler;

	/** The registry's clock: deadlines, turns and queue entries are read on it. */
	final MonotonicClock clock;

	final ConcurrentHashMap<String, Line> lines = new ConcurrentHashMap<>();

	/** Made once: a lambda at each call would allocate, since it captures. */
	private final Function<String, Line> newLine = (key) -> new Line(this, key);

	volatile ReleaseHints.@Nullable Channels hints;

	/** How many nodes publish each release hint ({@link #hintNodes}). */
	volatile int hintNodes = 1;

	/** The turns that this registry's lines take among processes. */
	final Turns turns;

	/**
	 * Makes the lines of one registry.
	 * @param clock the registry's clock, on which the deadlines given to {@link #enter}
	 * are read
	 * @param stamps the time the lines' entries in the nodes' queues are stamped with, in
	 * ms ({@link NodeFleet#queueStampMillis})
	 */
	public Waiting(RedlockSettings settings, ScheduledExecutorService scheduler, MonotonicClock clock,
			LongSupplier stamps) {
		this.retryDelays = new RetryDelays(settings);
		this.scheduler = scheduler;
		this.clock = clock;
		this.turns = new Turns(this.retryDelays.delayNanos, this.retryDelays.jitterNanos, clock, stamps);
	}

	/**
	 * Sets how long a line keeps the turn for its own waiters, for tests (the default is
	 * {@link #TURN_NANOS}).
	 */
	public void turn(Duration turn) {
		this.turns.turnNanos = turn.toNanos();
	}

	/** Returns the id of this registry's lines in the nodes' queues. */
	public String lineId() {
		return this.turns.lineId;
	}

	/**
	 * Returns the release script's arguments for a lease of this registry on {@code key}:
	 * the secret and the token, then the queue argument that hands the next turn to
	 * another process's line ({@link Turns#releaseArgs}).
	 */
	public String[] releaseArgs(String key, String secret, long token, QuorumCall acquisition) {
		return this.turns.releaseArgs(this.lines.get(key), secret, token, acquisition);
	}

	/**
	 * Returns the release script's arguments for a lease of this registry on {@code key}
	 * that was lost before its release ({@link Turns#lostReleaseArgs}).
	 */
	public String[] lostReleaseArgs(String key, String secret, long token) {
		return this.turns.lostReleaseArgs(this.lines.get(key), secret, token);
	}

	/**
	 * Returns whether release arguments from {@link #releaseArgs} keep the turn for the
	 * line's next waiter.
	 */
	public boolean keepsTurn(String[] releaseArgs) {
		return this.turns.keepsTurn(releaseArgs);
	}

	/** Sets where release hints come from; without them, waiters poll. */
	public void useHints(ReleaseHints.@Nullable Channels hints) {
		this.hints = hints;
	}

	/** Returns the retry delay, without jitter. */
	public long retryDelayNanos() {
		return this.retryDelays.delayNanos;
	}

	/**
	 * Returns the delay before a head tries again after a failed attempt.
	 * @param holderLeftNanos the holder's remaining time to live as the nodes reported
	 * it, or a negative value if none did
	 */
	public long retryDelay(long holderLeftNanos) {
		return retryDelay(holderLeftNanos, 0);
	}

	/**
	 * Returns the delay before a head tries again after a failed attempt, doubled
	 * {@code doublings} times ({@link Waiter#pollBackoff}) before it is capped by the
	 * holder's time to live.
	 */
	public long retryDelay(long holderLeftNanos, int doublings) {
		return this.retryDelays.next(holderLeftNanos, doublings);
	}

	/**
	 * Returns how long the nodes keep a line's entry in their queues, given the longest
	 * that a waiter of the line may still wait ({@link Turns#entryNanos}).
	 */
	long entryNanos(long longestNanos) {
		return this.turns.entryNanos(longestNanos);
	}

	/**
	 * Puts an acquisition in its key's line. When it is the head and no lease of this
	 * registry holds the key, {@link Waiter#startsNow()} says so, and the caller sends
	 * its first attempt at once. Any other attempt is the line's to start, on whatever
	 * thread hands it the turn, and may start before this returns: each is told its place
	 * ({@link Entrant}).
	 * @param key the lock key
	 * @param entrant the acquisition
	 * @param deadline when its wait time is spent, on the registry's clock
	 * @return its place, which it must leave ({@link Waiter#leave},
	 * {@link Waiter#leaveHolding}) when it is done
	 */
	public Waiter enter(String key, Entrant entrant, long deadline) {
		while (true) {
			Line line = this.lines.computeIfAbsent(key, this.newLine);
			Place waiter = new Place(this, line, entrant, deadline);
			synchronized (line) {
				if (line.retired) {
					continue; // emptied and removed meanwhile: take the new one
				}
				line.enter(waiter);
			}
			return waiter;
		}
	}

	/**
	 * Counts a lease of this registry on {@code key} that was acquired without standing
	 * in line, or after its waiter gave up.
	 * @return the hold that the lease ends once, when it ends
	 */
	public LineHold holding(String key) {
		return count(key, 0, null);
	}

	/**
	 * Counts a permit of this registry on a semaphore's {@code key}. It does not keep the
	 * head from trying (another permit may be free), but while this registry holds as
	 * many as the semaphore has, only its own release can free one, and the line asks for
	 * no release hints: a permit handed over within the registry subscribes nowhere. When
	 * the permit ends, however it ends, its hold wakes the line's head as {@link #hint}
	 * does.
	 * @param permits the semaphore's permit count
	 * @param message the message the permit's release publishes on the nodes, so that
	 * their hints of the same release are heard as echoes (if one came first, the end of
	 * the hold is the echo)
	 * @return the hold that the permit's lease ends once, when it ends
	 */
	public LineHold permitHeld(String key, int permits, String message) {
		return count(key, permits, message);
	}

	/**
	 * Counts a lease, or with a {@code permitMessage} a permit, in the key's line that is
	 * in the map (a retired one would forget it).
	 */
	private LineHold count(String key, int permits, @Nullable String permitMessage) {
		while (true) {
			Line line = this.lines.computeIfAbsent(key, this.newLine);
			synchronized (line) {
				if (!line.retired) {
					return (permitMessage != null) ? line.permitHold(permits, permitMessage) : line.hold(false);
				}
			}
		}
	}

	/**
	 * Wakes the head of {@code key}'s line, if no lease of this registry holds the key:
	 * another process released it. Every node of a release publishes the same message
	 * (the lease's token), so a hint of the release the line heard last is an echo from
	 * another node and wakes nobody, though a failed attempt of the head then tries again
	 * within {@link Place#ECHO_DELAY_NANOS}; a hint that names this line's turn has it
	 * wait for the other nodes' hints of the release first ({@link HintGathering}).
	 * @param message the message published, or {@code null} (no release: a try after
	 * subscribing)
	 */
	public void hint(String key, @Nullable String message) {
		Line line = this.lines.get(key);
		if (line == null) {
			return;
		}
		Place head;
		synchronized (line) {
			head = (line.holders == 0) ? line.waiters.peekFirst() : null;
			if (message != null && !message.isEmpty()
					&& !line.hints().hear(message, head, line.turn, this.turns.lineId)) {
				return;
			}
		}
		if (head != null) {
			head.wake();
		}
	}

	/**
	 * Sets how many nodes publish each release hint: a line whose turn a hint names waits
	 * for that many hints of the release (or {@link HintGathering#HINTS_GRACE_NANOS})
	 * before it tries.
	 */
	public void hintNodes(int nodes) {
		this.hintNodes = nodes;
	}

	/** Returns how many acquisitions stand in lines. */
	public int waiters() {
		int count = 0;
		for (Line line : this.lines.values()) {
			synchronized (line) {
				count += line.waiters.size();
			}
		}
		return count;
	}

	/**
	 * Describes the key's line, for diagnostics in tests: its waiters' phases, its
	 * holders, and whether it asks for release hints.
	 */
	public String describe(String key) {
		Line line = this.lines.get(key);
		if (line == null) {
			return "no line";
		}
		synchronized (line) {
			return line.describe();
		}
	}

	/**
	 * An acquisition in a line, as the line drives it. Each call names the place it is
	 * for: the waiter before it may leave (and hand it the turn, on that waiter's thread)
	 * between its entering the line and {@link #enter} returning its place to it.
	 */
	public interface Entrant {

		/**
		 * Sends one attempt; called once per turn, never concurrently. It ends in
		 * {@link Waiter#retry}, {@link Waiter#leave} or {@link Waiter#leaveHolding} on
		 * {@code place}.
		 */
		void attempt(Waiter place);

		/** Fails the acquisition: its wait time was spent in line. */
		void timedOut(Waiter place);

	}

	/** One acquisition's place in its key's line, as the acquisitions see it. */
	public interface Waiter {

		/**
		 * Returns whether the acquisition sends its first attempt at once, as the head of
		 * its line with no lease of this registry on the key.
		 */
		boolean startsNow();

		/**
		 * After a failed attempt: tries again after {@code delayNanos}, or at once if
		 * woken meanwhile, never past the deadline.
		 * @return {@code false} if the registry is closing and runs no more attempts
		 */
		boolean retry(long delayNanos);

		/**
		 * After an attempt that a holder refused: returns the arguments with which to
		 * queue this line on the nodes ({@link Script#QUEUE_WAITER}: the client's clock
		 * in ms, the line's id, how long it may wait in ms), or {@code null} when it has
		 * no wait time left or is not attempting. A line the nodes keep queued already is
		 * queued again with its stamp, keeping its place.
		 */
		String @Nullable [] queueArgs();

		/**
		 * Leaves the line without a lease: the acquisition is done. The next waiter
		 * becomes the head, and tries at once unless a lease of this registry holds the
		 * key. Leaving again, or after {@link #leaveHolding}, changes nothing.
		 * @return whether the caller must take the line out of the nodes' queues: it left
		 * the line empty while the nodes keep it queued; else a release would name a line
		 * that nobody waits in, and the others would wait for their poll
		 */
		boolean leave();

		/**
		 * Leaves the line with a lease, which the line counts until the lease ends the
		 * returned hold: the next waiter becomes the head and sleeps until then. A lease
		 * that came after its waiter gave up is counted all the same
		 * ({@link Waiting#holding}), since its end will be told.
		 * @return the hold that the lease ends once; {@link LineHold#unqueue} says
		 * whether the caller must take the line out of the nodes' queues, as it acquired
		 * while they keep it queued (no release named it)
		 */
		LineHold leaveHolding();

		/**
		 * Returns the acquisition of the lease of this registry on the key released last,
		 * or {@code null}: its release goes to each node once that node answered that
		 * acquisition, so an attempt sent to a node after the same answer reaches it
		 * after the release (one connection per node keeps the order).
		 */
		@Nullable QuorumCall released();

		/**
		 * Returns by how many doublings to lengthen the retry delay before this head's
		 * next poll: 0, unless the nodes keep its line queued, when its turn comes as a
		 * hint naming it and a poll is only there in case the line named before it is
		 * gone (or a hint was lost): then one more for each poll since it was queued, up
		 * to 4 (16 times the retry delay; never past the holder's time to live, which the
		 * caller caps it by).
		 */
		int pollBackoff();

		/** Returns how many waiters stand before this one. */
		int ahead();

	}

}
