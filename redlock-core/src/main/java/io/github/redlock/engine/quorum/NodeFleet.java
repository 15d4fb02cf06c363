package io.github.redlock.engine.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.LongPredicate;

import io.github.redlock.Durations;
import io.github.redlock.LockKeys;
import io.github.redlock.RedlockException;
import io.github.redlock.engine.RedlockSettings;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.node.NodeAddress;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.NodeReply;
import io.github.redlock.engine.node.NodeSilence;
import io.github.redlock.engine.node.RestartGuard;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.node.ServerIdentities;
import io.github.redlock.engine.node.SilentNodes;
import io.github.redlock.engine.node.WriteCoalescing;
import io.github.redlock.engine.waiting.Waiting;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The N nodes of a registry: their clients on shared Lettuce resources, the quorum
 * ({@code N/2+1}), and the two ways of asking them: a {@link #quorumCall quorum call},
 * decided as soon as a quorum agreed or no longer can (acquire, extend), and
 * {@link #toEach asking each node} and gathering every answer (inspection, node checks; a
 * release goes to every node too, each chained on that node's acquisition reply).
 *
 * @author redlock contributors
 */
public final class NodeFleet {

	private static final Log logger = LogFactory.getLog(NodeFleet.class);

	private final List<NodeClient> nodes;

	private final Quorum quorum;

	private final ClientResources resources;

	private final boolean ownsResources;

	/**
	 * Whether {@link #resources} are a copy of the application's that adds
	 * {@link WriteCoalescing}: shut down on close, which stops nothing shared.
	 */
	private final boolean copiesResources;

	private final Duration connectTimeout;

	private final long callBoundNanos;

	private final long nodeTimeoutNanos;

	private volatile CompletableFuture<Void> connected;

	private volatile FleetAvailability availability;

	/** Releases and withdrawals not yet done on every node. */
	private final AtomicInteger deleting = new AtomicInteger();

	/** Completed once {@link #deleting} is zero, while someone waits for that. */
	private volatile CompletableFuture<Void> drained;

	/**
	 * Creates the clients; connects none of them.
	 * @param addresses the nodes, in configuration order
	 * @param settings the registry's settings
	 * @param resources Lettuce resources to share, or {@code null} to create (and later
	 * shut down) the fleet's own
	 * @param guard how restarted nodes are kept out of quorums
	 * @param acceptEviction whether a node whose memory policy may evict keys still
	 * counts
	 * @param silentNodes when a node that times out counts as silent, and how often it is
	 * probed
	 * @param clientOptions what to change on each node's client options
	 * @param coalesceWrites whether concurrent commands to one node go out in one write
	 * ({@link WriteCoalescing})
	 */
	public NodeFleet(List<NodeAddress> addresses, RedlockSettings settings, ClientResources resources,
			RestartGuard guard, boolean acceptEviction, SilentNodes silentNodes,
			Consumer<ClientOptions.Builder> clientOptions, boolean coalesceWrites) {
		this.ownsResources = resources == null;

		if (this.ownsResources) {
			DefaultClientResources.Builder builder = DefaultClientResources.builder()
				.reconnectDelay(
						Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS));
			if (coalesceWrites) {
				builder.nettyCustomizer(WriteCoalescing.create());
			}
			this.resources = builder.build();
		}
		else {
			this.resources = coalesceWrites ? sharedWithCoalescing(resources) : resources;
		}
		this.copiesResources = !this.ownsResources && this.resources != resources;
		List<NodeClient> clients = new ArrayList<>(addresses.size());
		ServerIdentities identities = new ServerIdentities();
		for (NodeAddress address : addresses) {
			clients.add(new NodeClient(address, this.resources, settings.nodeTimeout(), settings.maxTtl(),
					settings.connectTimeout(), guard, identities, acceptEviction, silentNodes, clientOptions,
					this::changed));
		}
		this.nodes = List.copyOf(clients);
		this.quorum = new Quorum(this.nodes.size());
		this.availability = new FleetAvailability(this.nodes, this.quorum);
		this.connectTimeout = settings.connectTimeout();
		this.callBoundNanos = 3 * settings.nodeTimeout().toNanos() + TimeUnit.SECONDS.toNanos(1);
		this.nodeTimeoutNanos = settings.nodeTimeout().toNanos();
	}

	/**
	 * Returns a copy of the application's resources that adds write coalescing, or the
	 * resources themselves if they cannot be copied (a {@code ClientResources} of its own
	 * whose {@code mutate()} fails): locking works the same, one write per command.
	 */
	private static ClientResources sharedWithCoalescing(ClientResources resources) {
		try {
			return WriteCoalescing.sharing(resources);
		}
		catch (RuntimeException ex) {
			logger.info("Redlock nodes get no write coalescing: the given ClientResources could not be copied (" + ex
					+ "); each command goes out in a write of its own");
			return resources;
		}
	}

	private void changed() {
		FleetAvailability current = this.availability;
		if (current != null) {
			current.changed();
		}
	}

	public int size() {
		return this.nodes.size();
	}

	public int quorum() {
		return this.quorum.majority();
	}

	/**
	 * Returns how many nodes count toward a quorum now, as the last connection events and
	 * the restart guard say; asks no node.
	 */
	public int usable() {
		int usable = 0;
		for (NodeClient node : this.nodes) {
			if (node.isUp() && node.isTrusted()) {
				usable++;
			}
		}
		return usable;
	}

	/**
	 * Returns whether a quorum of nodes may count toward a quorum by {@code deadline}
	 * ({@link System#nanoTime()}): nodes usable now, and nodes that may be soon (slow,
	 * being checked, or kept out by the restart guard until before the deadline). Nodes
	 * that refuse connections, are duplicates, may evict keys or lack a permission are
	 * not expected back.
	 */
	public boolean quorumPossibleBy(long deadline) {
		int possible = 0;
		for (NodeClient node : this.nodes) {
			if (node.mayCountBy(deadline)) {
				possible++;
			}
		}
		return this.quorum.reachedBy(possible);
	}

	public List<NodeClient> nodes() {
		return this.nodes;
	}

	/**
	 * Returns the Lettuce resources the node clients use.
	 */
	public ClientResources resources() {
		return this.resources;
	}

	public NodeClient node(int index) {
		return this.nodes.get(index);
	}

	/**
	 * Returns the longest a caller waits for one call to every node: the node timeout
	 * covers a script and its NOSCRIPT reload, with a second of slack for a busy machine.
	 */
	public long callBoundNanos() {
		return this.callBoundNanos;
	}

	/**
	 * Connects to every node, once; later calls return the same future.
	 * @return a future that completes, never exceptionally, when every node answered or
	 * gave up
	 */
	public CompletableFuture<Void> connect() {
		CompletableFuture<Void> ready = this.connected;
		if (ready == null) {
			synchronized (this) {
				ready = this.connected;
				if (ready == null) {
					FleetAvailability fleetAvailability = this.availability;
					ready = CompletableFuture
						.allOf(this.nodes.stream().map(NodeClient::connect).toArray(CompletableFuture[]::new))
						.thenRun(() -> {
							try {
								fleetAvailability.start();
							}
							catch (RuntimeException ex) {
								// only logging: it must never keep attempts from running
							}
						});
					this.connected = ready;
				}
			}
		}
		return ready;
	}

	/**
	 * Runs {@code action} once every node has been tried: at once on the calling thread
	 * when they have been already.
	 */
	public void whenConnected(Runnable action) {
		CompletableFuture<Void> ready = connect();
		if (ready.isDone()) {
			action.run();
		}
		else {
			ready.thenRun(action);
		}
	}

	/**
	 * Connects and waits at most the connect timeout. Whether a quorum can be reached is
	 * {@link FleetAvailability}'s to say, once every node has been tried.
	 */
	public void start() {
		try {
			connect().get(this.connectTimeout.toNanos() + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedlockException("Interrupted while connecting to the redlock nodes", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.warn("Not every redlock node answered within " + Durations.format(this.connectTimeout));
		}
	}

	/**
	 * Sends a script to every node, decided as soon as a quorum agreed or no longer can.
	 * @param agrees which integer replies count as agreement
	 * @param call the call to make on one node
	 */
	public QuorumCall quorumCall(LongPredicate agrees, QuorumCall.Send call) {
		return QuorumCall.start(this.nodes, this.quorum.majority(), agrees, call);
	}

	/**
	 * Asks every node at once.
	 * @param call the call to make on the node at an index
	 * @return one future per node, in configuration order
	 */
	<T> List<CompletableFuture<T>> toEach(NodeCall<T> call) {
		List<CompletableFuture<T>> answers = new ArrayList<>(this.nodes.size());
		for (int i = 0; i < this.nodes.size(); i++) {
			answers.add(call.call(i, this.nodes.get(i)));
		}
		return answers;
	}

	/**
	 * Asks every node at once and waits for the answers, all within one call bound; a
	 * node that has not answered by then is described by {@code noAnswer}.
	 * @param doing what the caller does, for the message if interrupted
	 * @return the answers, in configuration order
	 */
	public <T> List<T> askEveryNode(Function<NodeClient, CompletableFuture<T>> question,
			Function<NodeClient, T> noAnswer, String doing) {
		List<CompletableFuture<T>> answers = toEach((index, node) -> question.apply(node));
		long deadline = System.nanoTime() + this.callBoundNanos;
		List<T> result = new ArrayList<>(answers.size());
		for (int i = 0; i < answers.size(); i++) {
			try {
				result.add(answers.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new RedlockException("Interrupted while " + doing, ex);
			}
			catch (ExecutionException | TimeoutException ex) {
				result.add(noAnswer.apply(this.nodes.get(i)));
			}
		}
		return result;
	}

	/**
	 * Deletes the lock on every node where its value starts with {@code secret}, with
	 * {@link Script#RELEASE}, which publishes a release hint. On each node the release is
	 * sent only once that node has answered the acquisition, so that it can never
	 * overtake the acquire script (as it could while a NOSCRIPT reply made the script be
	 * sent again).
	 * <p>
	 * A node that answered the acquisition "held by another owner" gets no release: its
	 * script found another value under the key in the same atomic step as the
	 * {@code SET NX}, so the value was not set there, and it never will be, since a
	 * command is sent once and never replayed after a reconnect (a reply that arrives on
	 * a later connection counts as no answer). A compare-and-delete there could delete
	 * nothing. Nor does a silent node that was not sent the acquisition
	 * ({@link NodeSilence}). Every other node gets the release: those that agreed,
	 * failed, timed out, or answered after the attempt was decided with anything but
	 * "held", silent ones included (a value sent before a node fell silent is deleted
	 * there when it answers again).
	 * <p>
	 * The returned future completes once a quorum of nodes is known to be free of the
	 * value: mutual exclusion needs no more, since the next holder needs a quorum and a
	 * quorum no longer holds this value. The other nodes' deletions are still sent and
	 * awaited in the background, and {@link #close()} waits for them
	 * ({@link #awaitDeletions}). Until they land, a slow node may still hold the key: a
	 * caller that reads every node right after a release (as tests do) must wait for
	 * them. Waiting for every node would add the slowest node's reply to every
	 * uncontended cycle.
	 * @param keys the lock's key and the key's queue of waiting processes on the nodes
	 * @param args the release script's arguments: the lock value's secret part
	 * ({@link LockValues#secret}), the lease's fencing token (published with the release
	 * hint) and the line's queue arguments ({@code Waiting#releaseArgs})
	 * @param acquisition the acquisition that wrote the value
	 * @param afterQuorum run once a quorum of nodes answered the release, timed out or
	 * was never sent it (every node does one of these, within the node timeout): then a
	 * quorum is free of the lock, whatever order the commands took on the nodes (a script
	 * reloaded after a NOSCRIPT reply goes out after commands sent later); or
	 * {@code null}
	 * @return a future that completes with {@code true}, on the thread of the reply that
	 * made it so, once a quorum of nodes answered the release (deleted the value, or no
	 * longer held it) or never had the value; or with {@code false} once every node is
	 * done and fewer than a quorum are known free (the others timed out or failed: the
	 * lock stays held there until its ttl runs out)
	 * @param warnKey the lock's key as the caller named it, to log a warning with when a
	 * quorum could not be freed, or {@code null} for none (a lease already lost)
	 */
	public CompletableFuture<Boolean> releaseEverywhere(String[] keys, String[] args, QuorumCall acquisition,
			AfterQuorum afterQuorum, String warnKey) {
		return start(new Deletion(Script.RELEASE, keys, args, acquisition, afterQuorum, null, warnKey));
	}

	/**
	 * Queues this registry's line for a key on every node ({@link Script#QUEUE_WAITER}),
	 * after an attempt was refused by a holder, so that a release names it when its turn
	 * comes; fire and forget, but for one answer: {@code free} runs when a quorum of
	 * nodes said that the key was free by then (released between the refusal and this,
	 * with a hint for nobody in this line).
	 * @param keys the lock's key and the key's queue on the nodes
	 * @param args the line's stamp, its id and how long it may wait, in ms
	 * @param free what to run when a quorum found the key free, or {@code null}
	 */
	public void queueWaiter(String[] keys, String[] args, Runnable free) {
		AtomicInteger freeCount = new AtomicInteger();
		NodeClient.ReplyHandler replies = (index, reply) -> {
			if (free != null && reply.answered() && reply.value() == -2
					&& this.quorum.reachedAt(freeCount.incrementAndGet())) {
				free.run();
			}
		};
		for (int i = 0; i < this.nodes.size(); i++) {
			NodeClient node = this.nodes.get(i);
			if (!node.isSilent()) {
				// nothing but deletions goes to a silent node (NodeSilence)
				node.eval(Script.QUEUE_WAITER, keys, args, i, replies);
			}
		}
	}

	/**
	 * What a release runs once a quorum of nodes is done with it.
	 */
	@FunctionalInterface
	public interface AfterQuorum {

		/**
		 * @param queuedBehind whether a node of that quorum named another process's line
		 * in its release hint and queued this registry's line behind it
		 * ({@link Script#RELEASE}): this registry's next waiter waits its turn
		 */
		void done(boolean queuedBehind);

	}

	/**
	 * Deletes a failed attempt's value as {@link #releaseEverywhere} does, but with
	 * {@link Script#WITHDRAW}, which publishes no release hint, and which undoes the
	 * attempt's increment of a node's fencing counter where the attempt counted above the
	 * nodes that refused it ({@link QuorumCall#tokenAboveHolders}).
	 * @param lockAndFence the lock's key and its fencing counter's key on the nodes
	 * @param retentionMillis the fencing counter's retention, in milliseconds
	 */
	public CompletableFuture<Boolean> withdrawEverywhere(String[] lockAndFence, String secret, QuorumCall acquisition,
			String retentionMillis) {
		return deleteEverywhere(Script.WITHDRAW, lockAndFence, secret, acquisition, null, retentionMillis);
	}

	private CompletableFuture<Boolean> deleteEverywhere(Script script, String[] keys, String secret,
			QuorumCall acquisition, Runnable afterQuorum, String retentionMillis) {
		return start(new Deletion(script, keys, new String[] { secret }, acquisition, ignoring(afterQuorum),
				retentionMillis, null));
	}

	/**
	 * Sends a script that undoes an acquisition (releases or withdraws a read lock, a
	 * write lock or a permit) to every node, each once it answered the acquisition and
	 * skipping those that answered it "held", as {@link #releaseEverywhere} does, and
	 * counted among the deletions that {@link #close()} waits for.
	 * @param script the release or withdrawal script
	 * @param keys its keys
	 * @param args its arguments
	 * @param acquisition the acquisition that wrote the value
	 * @param afterQuorum run once a quorum is done, or {@code null}
	 * @param warnKey as for {@link #releaseEverywhere}
	 * @return a future that completes with {@code true} once a quorum of nodes is free of
	 * the entry, or {@code false} once every node is done without that
	 */
	public CompletableFuture<Boolean> undoEverywhere(Script script, String[] keys, String[] args,
			QuorumCall acquisition, Runnable afterQuorum, String warnKey) {
		return start(new Deletion(script, keys, args, acquisition, ignoring(afterQuorum), null, warnKey));
	}

	private static AfterQuorum ignoring(Runnable afterQuorum) {
		return (afterQuorum != null) ? (queuedBehind) -> afterQuorum.run() : null;
	}

	/**
	 * Sends a deletion to each node once that node answered the acquisition, counted
	 * among those {@link #close()} waits for.
	 */
	private CompletableFuture<Boolean> start(Deletion deletion) {
		this.deleting.incrementAndGet();
		for (int i = 0; i < this.nodes.size(); i++) {
			deletion.acquisition.afterReply(i, deletion);
		}
		return deletion.freed;
	}

	/**
	 * Counts off a deletion that every node is done with, and completes {@link #drained}
	 * when it was the last one and the fleet is closing.
	 */
	private void deletionDone() {
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
	public boolean awaitDeletions(long timeoutNanos) throws InterruptedException {
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

	/**
	 * One release or withdrawal on every node: sends the script to a node once that node
	 * answered the acquisition (unless it answered "held"), and counts the nodes done,
	 * one object for all of them rather than futures per node. {@link #freed} completes
	 * when a quorum is known free of the value, or when every node is done.
	 */
	private final class Deletion implements IntConsumer, NodeClient.DeletionDeadline, TimerTask {

		private static final byte SENT = 1;

		private static final byte DONE = 2;

		private final Script script;

		/** The lock's key, and for a withdrawal its fencing counter's. */
		private final String[] keys;

		private final String[] args;

		private final QuorumCall acquisition;

		/**
		 * The counter's retention for a withdrawal that may undo an increment, else null.
		 */
		private final String retentionMillis;

		private final AfterQuorum afterQuorum;

		/**
		 * Whether a node's release named another process's line and queued this one
		 * behind it (a reply 2 to {@link Script#RELEASE}).
		 */
		private volatile boolean queuedBehind;

		/** Nodes done: answered, failed, timed out or never sent the deletion. */
		private final AtomicInteger answered = new AtomicInteger();

		/** Nodes known free of the value: answered, or never had it. */
		private final AtomicInteger free = new AtomicInteger();

		private final CompletableFuture<Boolean> freed = new CompletableFuture<>();

		/** The lock's key to warn with when no quorum could be freed, or null. */
		private final String warnKey;

		/**
		 * When each node was sent the deletion ({@link System#nanoTime()}), read only for
		 * a node {@link #SENT}. Guarded by this.
		 */
		private final long[] sentAt = new long[NodeFleet.this.nodes.size()];

		/**
		 * Each node's state: not sent yet (0), {@link #SENT} or {@link #DONE}, so that a
		 * reply after the node's timeout (Lettuce still writes a late deletion, and hears
		 * its reply) counts once. Guarded by this.
		 */
		private final byte[] state = new byte[NodeFleet.this.nodes.size()];

		private int doneCount;

		/**
		 * One timer for every node, at the earliest deadline of a node sent the deletion
		 * and not done, or null. Guarded by this.
		 */
		private Timeout timer;

		Deletion(Script script, String[] keys, String[] args, QuorumCall acquisition, AfterQuorum afterQuorum,
				String retentionMillis, String warnKey) {
			this.warnKey = warnKey;
			this.script = script;
			this.keys = keys;
			this.args = args;
			this.acquisition = acquisition;
			this.afterQuorum = afterQuorum;
			this.retentionMillis = retentionMillis;
		}

		/** The node at {@code index} answered the acquisition. */
		@Override
		public void accept(int index) {
			// a silent node that was not sent the value gets no deletion either: what is
			// sent to it stays bounded by what was sent before it fell silent
			if (this.acquisition.answeredHeld(index) || this.acquisition.unsent(index)) {
				if (done(index)) {
					answered(true);
				}
			}
			else {
				long undo = (this.retentionMillis != null) ? this.acquisition.tokenAboveHolders(index) : 0;
				String[] arguments = (undo > 0) ? new String[] { this.args[0], String.valueOf(undo),
						String.valueOf(undo - 1), this.retentionMillis } : this.args;
				NodeFleet.this.nodes.get(index).eval(this.script, this.keys, arguments, index, this);
			}
		}

		@Override
		public synchronized void sending(int index) {
			this.sentAt[index] = System.nanoTime();
			this.state[index] = SENT;
			if (this.timer == null) {
				this.timer = NodeFleet.this.resources.timer()
					.newTimeout(this, NodeFleet.this.nodeTimeoutNanos, TimeUnit.NANOSECONDS);
			}
		}

		/**
		 * The node at {@code index} answered the deletion, or failed to; a reply after
		 * the node timed out is dropped.
		 */
		@Override
		public void reply(int index, NodeReply reply) {
			if (done(index)) {
				if (reply.value() == 2 && reply.answered()) {
					// written before the count that may reach the quorum: seen by its
					// thread
					this.queuedBehind = true;
				}
				answered(reply.answered());
			}
		}

		/** Marks a node done; returns false if it already was. */
		private synchronized boolean done(int index) {
			if (this.state[index] == DONE) {
				return false;
			}
			this.state[index] = DONE;
			if (++this.doneCount == this.state.length && this.timer != null) {
				this.timer.cancel();
				this.timer = null;
			}
			return true;
		}

		@Override
		public void run(Timeout fired) {
			// off the timer's thread, as Lettuce completes its own timeouts
			NodeFleet.this.resources.eventExecutorGroup().execute(this::timeOut);
		}

		/**
		 * Counts each node sent the deletion a node timeout ago and not done as timed out
		 * (Lettuce still writes and awaits the command: see NodeClient's Timeouts), and
		 * sets the timer for the next such node's deadline.
		 */
		private void timeOut() {
			int late = 0;
			synchronized (this) {
				long now = System.nanoTime();
				long next = Long.MAX_VALUE;
				this.timer = null;
				for (int i = 0; i < this.state.length; i++) {
					if (this.state[i] == SENT) {
						long left = this.sentAt[i] + NodeFleet.this.nodeTimeoutNanos - now;
						if (left <= 0) {
							this.state[i] = DONE;
							this.doneCount++;
							late++;
						}
						else {
							next = Math.min(next, left);
						}
					}
				}
				if (next != Long.MAX_VALUE) {
					this.timer = NodeFleet.this.resources.timer().newTimeout(this, next, TimeUnit.NANOSECONDS);
				}
			}
			for (int i = 0; i < late; i++) {
				answered(false);
			}
		}

		private void answered(boolean free) {
			if (free && NodeFleet.this.quorum.reachedAt(this.free.incrementAndGet())) {
				this.freed.complete(true);
			}
			int count = this.answered.incrementAndGet();
			if (NodeFleet.this.quorum.reachedAt(count) && this.afterQuorum != null) {
				this.afterQuorum.done(this.queuedBehind);
			}
			if (count == NodeFleet.this.nodes.size()) {
				// every node is done, so the count of free nodes is final: warned before
				// the
				// future completes, so that a caller who returns has been warned
				if (!NodeFleet.this.quorum.reachedBy(this.free.get())) {
					if (this.warnKey != null) {
						logger.warn("Lock '" + LockKeys.printable(this.warnKey) + "' was released on fewer than "
								+ NodeFleet.this.quorum.majority() + " of " + NodeFleet.this.nodes.size()
								+ " nodes: the others did not answer within the node timeout. It may stay held there"
								+ " until its ttl runs out, and nobody can acquire it before then; check the nodes'"
								+ " health");
					}
					this.freed.complete(false);
				}
				deletionDone();
			}
		}

	}

	/**
	 * Closes every connection as {@link #close()} does, but keeps the clients and the
	 * Lettuce resources, so that {@link #resume()} and {@link #start()} connect again;
	 * waits a bounded time.
	 */
	public void stop() {
		CompletableFuture<?>[] stopping = this.nodes.stream()
			.map(NodeClient::stopAsync)
			.toArray(CompletableFuture[]::new);
		try {
			CompletableFuture.allOf(stopping)
				.get(this.callBoundNanos + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.debug("Redlock connections did not close cleanly", ex);
		}
	}

	/**
	 * Lets the stopped fleet connect again: the next {@link #connect()} connects every
	 * node, and availability is told afresh once every node has been tried.
	 */
	public void resume() {
		synchronized (this) {
			for (NodeClient node : this.nodes) {
				node.reopen();
			}
			this.availability = new FleetAvailability(this.nodes, this.quorum);
			this.connected = null;
		}
	}

	/**
	 * Waits for the releases and withdrawals still on their way (a release returns once a
	 * quorum is free of the lock), then closes every connection, letting scripts already
	 * sent land first, and the Lettuce resources if the fleet created them; waits a
	 * bounded time.
	 */
	public void close() {
		try {
			if (!awaitDeletions(this.callBoundNanos)) {
				logger.debug("Redlock releases were still on their way to some node when the connections closed");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		CompletableFuture<?>[] closing = this.nodes.stream()
			.map(NodeClient::closeAsync)
			.toArray(CompletableFuture[]::new);
		try {
			CompletableFuture.allOf(closing)
				.get(this.callBoundNanos + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS);
			if (this.ownsResources || this.copiesResources) {
				this.resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.debug("Redlock connections did not close cleanly", ex);
		}
	}

	@Override
	public String toString() {
		return this.nodes.toString();
	}

	/**
	 * A call to one node of the fleet.
	 *
	 * @param <T> what the node answers
	 */
	@FunctionalInterface
	interface NodeCall<T> {

		CompletableFuture<T> call(int index, NodeClient node);

	}

}
