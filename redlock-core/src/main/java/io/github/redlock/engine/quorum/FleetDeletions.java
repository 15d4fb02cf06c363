package io.github.redlock.engine.quorum;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.node.Script;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

/**
 * Releases, withdrawals and undos that reach every node, and waiting for them to land. A
 * release deletes the lock on every node where its value starts with the given secret,
 * with {@link Script#RELEASE}, which publishes a release hint. On each node the release
 * is sent only once that node has answered the acquisition, so that it can never overtake
 * the acquire script (as it could while a NOSCRIPT reply made the script be sent again).
 * <p>
 * A node that answered the acquisition "held by another owner" gets no release: its
 * script found another value under the key in the same atomic step as the {@code SET NX},
 * so the value was not set there, and it never will be, since a command is sent once and
 * never replayed after a reconnect (a reply that arrives on a later connection counts as
 * no answer). A compare-and-delete there could delete nothing. Nor does a silent node
 * that was not sent the acquisition ({@code NodeSilence}). Every other node gets the
 * release: those that agreed, failed, timed out, or answered after the attempt was
 * decided with anything but "held", silent ones included (a value sent before a node fell
 * silent is deleted there when it answers again).
 * <p>
 * A release's future completes once a quorum of nodes is known to be free of the value:
 * mutual exclusion needs no more, since the next holder needs a quorum and a quorum no
 * longer holds this value. The other nodes' deletions are still sent and awaited in the
 * background, and {@link NodeFleet#close()} waits for them ({@link #awaitDeletions}).
 * Until they land, a slow node may still hold the key: a caller that reads every node
 * right after a release (as tests do) must wait for them. Waiting for every node would
 * add the slowest node's reply to every uncontended cycle.
 *
 * @author redlock contributors
 */
final class FleetDeletions {

	private final List<QuorumMember> nodes;

	private final Quorum quorum;

	private final ClientResources resources;

	private final long nodeTimeoutNanos;

	/** Releases and withdrawals not yet done on every node. */
	private final AtomicInteger deleting = new AtomicInteger();

	/** Completed once {@link #deleting} is zero, while someone waits for that. */
	private volatile @Nullable CompletableFuture<Void> drained;

	FleetDeletions(List<QuorumMember> nodes, Quorum quorum, ClientResources resources, long nodeTimeoutNanos) {
		this.nodes = nodes;
		this.quorum = quorum;
		this.resources = resources;
		this.nodeTimeoutNanos = nodeTimeoutNanos;
	}

	List<QuorumMember> nodes() {
		return this.nodes;
	}

	Quorum quorum() {
		return this.quorum;
	}

	ClientResources resources() {
		return this.resources;
	}

	long nodeTimeoutNanos() {
		return this.nodeTimeoutNanos;
	}

	/**
	 * Releases with {@link Script#RELEASE}: see {@link NodeFleet#releaseEverywhere}.
	 */
	CompletableFuture<Boolean> release(String[] keys, String[] args, QuorumCall acquisition,
			NodeFleet.@Nullable AfterQuorum afterQuorum, @Nullable String warnKey) {
		return start(new Deletion(this, Script.RELEASE, keys, args, acquisition, afterQuorum, null, warnKey));
	}

	/**
	 * Withdraws a failed attempt's value: see {@link NodeFleet#withdrawEverywhere}.
	 */
	CompletableFuture<Boolean> withdraw(String[] lockAndFence, String secret, QuorumCall acquisition,
			@Nullable String retentionMillis) {
		return start(new Deletion(this, Script.WITHDRAW, lockAndFence, new String[] { secret }, acquisition, null,
				retentionMillis, null));
	}

	/**
	 * Undoes an acquisition of another kind: see {@link NodeFleet#undoEverywhere}.
	 */
	CompletableFuture<Boolean> undo(Script script, String[] keys, String[] args, QuorumCall acquisition,
			@Nullable Runnable afterQuorum, @Nullable String warnKey) {
		return start(new Deletion(this, script, keys, args, acquisition, ignoring(afterQuorum), null, warnKey));
	}

	private static NodeFleet.@Nullable AfterQuorum ignoring(@Nullable Runnable afterQuorum) {
		return (afterQuorum != null) ? (queuedBehind) -> afterQuorum.run() : null;
	}

	/**
	 * Sends a deletion to each node once that node answered the acquisition, counted
	 * among those {@link NodeFleet#close()} waits for.
	 */
	private CompletableFuture<Boolean> start(Deletion deletion) {
		this.deleting.incrementAndGet();
		return deletion.start();
	}

	/**
	 * Counts off a deletion that every node is done with, and completes {@link #drained}
	 * when it was the last one and the fleet is closing.
	 */
	void deletionDone() {
		if (this.deleting.decrementAndGet() == 0) {
			CompletableFuture<Void> waiting = this.drained;
			if (waiting != null) {
				waiting.complete(null);
			}
		}
	}

	/**
	 * Waits until every release and withdrawal sent so far is done on every node
	 * (answered, timed out or never sent), at most {@code timeoutNanos}: what a release
	 * that returned at a quorum left in the background.
	 * @return whether they all were done in time
	 * @throws InterruptedException if interrupted while waiting
	 */
	boolean awaitDeletions(long timeoutNanos) throws InterruptedException {
		CompletableFuture<Void> waiting = this.drained;
		if (waiting == null || waiting.isDone()) {
			waiting = new CompletableFuture<>();
			this.drained = waiting;
		}
		if (this.deleting.get() == 0) {
			waiting.complete(null);
		}
		try {
			waiting.get(timeoutNanos, TimeUnit.NANOSECONDS);
			return true;
		}
		catch (ExecutionException | TimeoutException ex) {
			return this.deleting.get() == 0;
		}
	}

}
