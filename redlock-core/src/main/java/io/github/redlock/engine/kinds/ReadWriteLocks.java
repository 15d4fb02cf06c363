package io.github.redlock.engine.kinds;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.engine.RedlockSettings;
import io.github.redlock.engine.lease.EngineContext;
import io.github.redlock.engine.lease.LeaseOps;
import io.github.redlock.engine.lease.RedlockLease;
import io.github.redlock.engine.node.KeyLayout;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.quorum.QuorumCall;
import io.github.redlock.engine.waiting.LineHold;
import io.github.redlock.engine.waiting.Waiting;
import org.jspecify.annotations.Nullable;

/**
 * Read-write locks on the quorum: any number of readers or one writer per key, each a
 * lease with its own fencing token, extension, watchdog and loss signal.
 *
 * <h2>On each node</h2> For a key {@code k} ({@link KeyLayout#readWriteKeys}):
 * <ul>
 * <li>{@code lock:k}, the exclusive lock's own key, holds the writer's value (with the
 * writer's TTL) or, while readers hold, {@link Script#READERS} with the latest reader's
 * expiry. So the exclusive lock ({@code acquire}) and the write lock on one key exclude
 * each other and readers with no change to the exclusive lock's scripts: its
 * {@code SET NX} fails while readers or a writer hold, and the reader and writer scripts
 * refuse while it holds. That is what users expect of {@code EXCLUSIVE} and {@code WRITE}
 * on one key.</li>
 * <li>{@code readers:k}, a sorted set: each reader's secret, scored with its own expiry
 * in the node's milliseconds. Every script that meets it first purges the dead readers
 * (score at or before now), so a reader whose process died frees its place when its TTL
 * ends, as a lock key would expire; whatever changes the set resets {@code READERS} to
 * the latest live expiry (or deletes it when none is left).</li>
 * <li>{@code fence:k}, the fencing counter, shared with the exclusive lock.</li>
 * <li>{@code writer:k}, the mark of a waiting writer (below).</li>
 * </ul>
 * <b>A reader</b> ({@link Script#ACQUIRE_READ}) is added on a node unless {@code lock:k}
 * holds a value other than {@code READERS} (a writer or an exclusive lock) or a writer's
 * mark is set; it then sets {@code READERS} to the latest expiry and takes the next
 * counter value, in one atomic step. <b>A writer</b> ({@link Script#ACQUIRE_WRITE}) sets
 * {@code lock:k} with {@code SET NX} only when no live reader is left, and takes the next
 * counter value. Either is held when a quorum agreed within its validity, exactly as an
 * exclusive lock ({@link AcquisitionLoop}); a failed attempt withdraws its entry
 * everywhere. Extension and release act only on the lease's own entry: a reader's
 * extension fails where its entry is gone or dead, so a reader that lost its quorum
 * learns it at its next extension and is lost, as any lease.
 *
 * <h2>Why a writer never overlaps a holder</h2> Say writer {@code W} and reader (or
 * writer, or exclusive holder) {@code R} were both held at time {@code t}. Each was
 * granted by a quorum and is held only within a validity shorter than its TTL on every
 * node, less drift, so at {@code t} each quorum node still holds its entry (the node's
 * copy lives the whole TTL from when the node wrote it, which is after the attempt
 * started). Two quorums share a node {@code n}. On {@code n} both entries were present at
 * {@code t}; whichever script ran second saw the first one's entry, live (an entry dies
 * only at its expiry, and a reader's entry is {@code READERS} in {@code lock:k} as well
 * as its own score), and refused: a writer refuses while {@code lock:k} exists or a live
 * reader is left; a reader refuses while {@code lock:k} holds anything but
 * {@code READERS}; an exclusive lock's {@code SET NX} fails while {@code lock:k} exists,
 * and {@code lock:k} outlives every live reader (every script that adds or extends a
 * reader makes it so, and a write lock's extension never shortens it below one: the
 * downgrade below). Contradiction. When {@code n} forgot its entries (restarted, flushed,
 * came back from an old snapshot), the restart guard keeps it out of every quorum until
 * the maximum TTL has passed since, so every entry it forgot has expired everywhere
 * before it counts again: the same argument as the exclusive lock's (spec 000, "delayed
 * restarts"). Readers exclude no reader; two readers of one process are two leases.
 *
 * <h2>Tokens</h2> Readers and writers take their tokens from the key's one counter, with
 * the same script code, maximum over the quorum, second round and floor as
 * {@link ExclusiveAcquisition} ({@link FencingRound}), whose argument carries over word
 * for word with "the lock is still ours there" read as "our entry is still live there"
 * (the second round for a reader, {@link Script#RAISE_READ}, raises only where its entry
 * is live). So every lease granted after another was granted has a larger token, whatever
 * the two leases' modes: a writer's token is above every earlier reader's and writer's
 * (and exclusive holder's), and a reader's above every earlier writer's. Readers that
 * hold at once may share a token (neither was granted before the other began); no writer
 * ever shares one.
 *
 * <h2>Writers are not starved</h2> A writer's attempt refused by a holder leaves a mark,
 * {@code writer:k}, for {@link #markTtlMillis} (a second, or four retry delays if more),
 * and every attempt of a waiting writer sets it again. A reader's script refuses while
 * the mark is set, so the readers that hold drain and none joins them; the writer's
 * acquisition deletes the mark if it is its own, and a writer that stops waiting deletes
 * it too ({@link Script#CLEAR_INTENT}), else it expires. Within one registry, readers and
 * writers of a key also stand in one {@link Waiting} line, in order; across processes, a
 * reader or writer refused by a holder queues its line on the nodes as an exclusive
 * waiter does ({@link Script#QUEUE_WAITER}), so that an exclusive holder's release
 * publishes and names it in its turn ({@link Waiting} says what that guarantees). Writers
 * thus take precedence over readers that arrive after them, and a stream of writers can
 * hold readers back (as {@code ReentrantReadWriteLock}'s non-fair mode may): by design,
 * since writes are what readers wait to see. The mark is only a preference; safety never
 * rests on it. The exclusive lock leaves no mark: use write locks where readers are many.
 *
 * <h2>Reentrancy</h2> ({@code RedlockRegistry}): a thread that holds a read lock and
 * reads again joins its lease (same token); a thread that holds the write lock may take a
 * read lock (a downgrade): its reader is added even though {@code lock:k} holds its own
 * writer's value and past any writer's mark, and when the writer is released,
 * {@code lock:k} turns to {@code READERS} rather than being deleted, so the thread keeps
 * reading with no gap in which a writer could enter. A thread that holds only a read lock
 * and asks for the write lock is refused at once: two readers that did so would each wait
 * for the other to leave, forever.
 *
 * @author redlock contributors
 */
public final class ReadWriteLocks {

	/** The scripts read and write locks send. */
	static final List<Script> SCRIPTS = List.of(Script.ACQUIRE_READ, Script.EXTEND_READ, Script.RAISE_READ,
			Script.RELEASE_READ, Script.WITHDRAW_READ, Script.ACQUIRE_WRITE, Script.EXTEND_WRITE, Script.RELEASE_WRITE,
			Script.CLEAR_INTENT);

	private static final String[] NONE = {};

	private final EngineContext engine;

	private final String markTtlMillis;

	public ReadWriteLocks(EngineContext engine) {
		this.engine = engine;
		this.markTtlMillis = String.valueOf(markTtlMillis(engine.settings()));
	}

	/**
	 * Returns how long a waiting writer's mark lives: a second, or four retry delays with
	 * their jitter if that is longer, so that it outlives the pause between two attempts
	 * of its writer.
	 */
	static long markTtlMillis(RedlockSettings settings) {
		return Math.max(1000, 4 * (settings.retryDelay().toMillis() + settings.retryJitter().toMillis()));
	}

	/**
	 * Acquires a read lock.
	 * @param writerSecret the secret of the write lease this thread holds on the key (a
	 * downgrade, which makes one attempt), or {@code null}
	 */
	public CompletableFuture<RedlockLease> read(String key, Duration ttl, Duration waitTime,
			@Nullable String writerSecret) {
		return new ReadAcquisition(key, ttl, (writerSecret != null) ? Duration.ZERO : waitTime,
				(writerSecret != null) ? writerSecret : "")
			.start();
	}

	/**
	 * Acquires the write lock.
	 */
	public CompletableFuture<RedlockLease> write(String key, Duration ttl, Duration waitTime) {
		return new WriteAcquisition(key, ttl, waitTime).start();
	}

	private static String describeHolder(long reply) {
		return "by a writer, readers, an exclusive holder or a waiting writer for " + (-reply - 1) + "ms more";
	}

	private final class ReadAcquisition extends AcquisitionLoop {

		private final String[] keys;

		private final String[] keysWithMarker;

		private final String writerSecret;

		ReadAcquisition(String key, Duration ttl, Duration waitTime, String writerSecret) {
			super(ReadWriteLocks.this.engine, ReadWriteLocks.this.engine.waiting(), false, key, ttl, waitTime);
			this.keys = this.engine.keys().readWriteKeys(key);
			this.keysWithMarker = new String[] { this.keys[0], this.keys[1], this.keys[2], this.keys[3],
					this.engine.keys().markerKeyOf(key) };
			this.writerSecret = writerSecret;
		}

		@Override
		String[] args(String value, int slot) {
			return new String[] { LockValues.secret(value), this.ttlMillis, this.engine.retentionMillis(),
					this.writerSecret, this.fleet.fencingStart() };
		}

		@Override
		void send(QuorumMember node, Attempt attempt, int index, NodeClient.ReplyHandler replies) {
			String marker = node.marker(this.keySlot);
			if (marker.isEmpty()) {
				node.eval(Script.ACQUIRE_READ, this.keys, attempt.args(), index, replies);
			}
			else {
				node.eval(Script.ACQUIRE_READ, this.keysWithMarker,
						attempt.argsWithMarker(marker, node.floor(this.keySlot)), index, replies);
			}
		}

		@Override
		String[] queueKeys() {
			return new String[] { this.keys[0], this.engine.keys().waitersKey(this.key) };
		}

		@Override
		void raise(QuorumMember node, Attempt attempt, String secret, String token, int index,
				NodeClient.ReplyHandler replies) {
			node.eval(Script.RAISE_READ, new String[] { this.keys[2], this.keys[1] },
					new String[] { secret, token, this.engine.retentionMillis() }, index, replies);
		}

		@Override
		void withdraw(QuorumCall call, Attempt attempt) {
			this.fleet.undoEverywhere(Script.WITHDRAW_READ, new String[] { this.keys[0], this.keys[2] },
					new String[] { LockValues.secret(attempt.value()) }, call, null, null);
		}

		@Override
		RedlockLease lease(Attempt attempt, long token, long start, long validUntil, QuorumCall call,
				@Nullable LineHold hold) {
			String lockKey = this.key;
			LeaseOps ops = LeaseOps.scripted(Script.EXTEND_READ,
					new String[] { this.keys[0], this.keys[1], this.keys[2] }, Script.RELEASE_READ,
					new String[] { this.keys[0], this.keys[2] }, NONE, NONE,
					() -> this.engine.waiting().hint(lockKey, null));
			return new RedlockLease(this.engine, this.key, attempt.value(), token, start, validUntil, call, ops);
		}

		@Override
		String describeRefusal(Attempt attempt, long reply) {
			return describeHolder(reply);
		}

	}

	private final class WriteAcquisition extends AcquisitionLoop {

		private final String[] keys;

		private final String[] keysWithMarker;

		/** This acquisition's mark, the same for all its attempts. */
		private final String mark;

		WriteAcquisition(String key, Duration ttl, Duration waitTime) {
			super(ReadWriteLocks.this.engine, ReadWriteLocks.this.engine.waiting(), true, key, ttl, waitTime);
			this.keys = this.engine.keys().readWriteKeys(key);
			this.keysWithMarker = new String[] { this.keys[0], this.keys[1], this.keys[2], this.keys[3],
					this.engine.keys().markerKeyOf(key) };
			this.mark = this.engine.values().next(this.engine.values().owner());
		}

		@Override
		boolean backsOff() {
			// the mark lives four retry delays: polls spaced out past that would let
			// readers in between, and a stream of them would starve the writer
			return false;
		}

		@Override
		String[] args(String value, int slot) {
			return new String[] { value, this.ttlMillis, this.engine.retentionMillis(),
					ReadWriteLocks.this.markTtlMillis, this.mark, this.fleet.fencingStart() };
		}

		@Override
		void send(QuorumMember node, Attempt attempt, int index, NodeClient.ReplyHandler replies) {
			String marker = node.marker(this.keySlot);
			if (marker.isEmpty()) {
				node.eval(Script.ACQUIRE_WRITE, this.keys, attempt.args(), index, replies);
			}
			else {
				node.eval(Script.ACQUIRE_WRITE, this.keysWithMarker,
						attempt.argsWithMarker(marker, node.floor(this.keySlot)), index, replies);
			}
		}

		@Override
		String[] queueKeys() {
			return new String[] { this.keys[0], this.engine.keys().waitersKey(this.key) };
		}

		@Override
		void raise(QuorumMember node, Attempt attempt, String secret, String token, int index,
				NodeClient.ReplyHandler replies) {
			node.eval(Script.RAISE_FENCE, new String[] { this.keys[0], this.keys[1] },
					new String[] { secret, token, this.engine.retentionMillis() }, index, replies);
		}

		@Override
		void withdraw(QuorumCall call, Attempt attempt) {
			this.fleet.withdrawEverywhere(new String[] { this.keys[0] }, LockValues.secret(attempt.value()), call,
					null);
		}

		@Override
		// counted in its line: the loop always gives a write lease a hold
		@SuppressWarnings("NullAway")
		RedlockLease lease(Attempt attempt, long token, long start, long validUntil, QuorumCall call,
				@Nullable LineHold hold) {
			LeaseOps ops = LeaseOps.scripted(Script.EXTEND_WRITE,
					new String[] { this.keys[0], this.keys[1], this.keys[2] }, Script.RELEASE_WRITE,
					new String[] { this.keys[0], this.keys[2] }, NONE, NONE, hold::ended);
			return new RedlockLease(this.engine, this.key, attempt.value(), token, start, validUntil, call, ops);
		}

		@Override
		String describeRefusal(Attempt attempt, long reply) {
			return describeHolder(reply);
		}

		/**
		 * Deletes this writer's mark where it is still its own, so that readers need not
		 * wait for it to expire.
		 */
		@Override
		void gaveUp() {
			String[] markKey = { this.keys[3] };
			for (QuorumMember node : this.fleet.nodes()) {
				node.eval(Script.CLEAR_INTENT, markKey, this.mark);
			}
		}

	}

}
