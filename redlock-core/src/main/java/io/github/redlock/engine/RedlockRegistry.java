package io.github.redlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Consumer;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockInfo;
import io.github.redlock.LockRegistry;
import io.github.redlock.LockSemaphore;
import io.github.redlock.engine.kinds.AcquisitionAwait;
import io.github.redlock.engine.lease.ReentrantLease;
import io.github.redlock.engine.node.KeyLayout;
import io.github.redlock.engine.quorum.Validity;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockRegistry} over N independent Redis-protocol masters, following the Redlock
 * algorithm: every operation goes to all nodes at once over one multiplexed connection
 * per node, and counts only with a majority ({@code N/2+1}) within the lock's validity.
 *
 * <pre class="code">
 * RedlockRegistry registry = RedlockRegistry.builder()
 *     .nodes("redis://10.0.0.1:6379", "redis://10.0.0.2:6379", "redis://10.0.0.3:6379")
 *     .build();
 * </pre>
 * <p>
 * Keys on the nodes are {@code <keyPrefix>lock:{<key>}} for the lock and
 * {@code <keyPrefix>fence:{<key>}} for its counter, in one Redis Cluster slot (docs:
 * Upgrading). Leases of {@link #executeLocked} and {@link #obtain} locks are extended on
 * one shared scheduler thread. Close the registry to release every held lease and close
 * the connections; {@link #stop()} does the same but lets {@link #start()} connect again.
 * <p>
 * This class is the façade: it hands each call to the part of the engine that does the
 * work (see the package documentation for the map) and owns no invariant of its own. The
 * {@link Builder} is nested because {@code RedlockRegistry.Builder} is a public name; it
 * only collects options, which {@code RegistryOptions} keeps and checks. Its length is
 * the Javadoc of the public methods and options, each a line or two of code.
 *
 * @author redlock contributors
 */
public final class RedlockRegistry implements LockRegistry, AutoCloseable {

	/** Longest key accepted, in characters, before the prefix is added. */
	public static final int MAX_KEY_LENGTH = KeyLayout.MAX_KEY_LENGTH;

	private final RegistryEngine parts;

	private RedlockRegistry(RegistryEngine parts) {
		this.parts = parts;
	}

	/**
	 * Creates a builder.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Returns the shortest TTL any lock can be valid for with a drift factor: a whole
	 * number of milliseconds longer than the clock drift allowed for it ({@code 3ms} with
	 * the default factor, 0.01). A shorter TTL is refused as an argument.
	 * @param driftFactor the share of the TTL allowed for clock drift, below 0.5
	 * @return the shortest TTL
	 */
	public static Duration leastTtl(double driftFactor) {
		return Duration.ofMillis(new Validity(driftFactor, 0).leastTtlMillis());
	}

	/**
	 * Connects to every node, waiting at most the connect timeout. Optional: the first
	 * lock operation connects if this was not called. A node that cannot be reached does
	 * not fail the start; it is retried when needed and counts toward no quorum until it
	 * answers.
	 * <p>
	 * After {@link #stop()}, starts the registry again: it connects anew, and a node is
	 * checked (by the restart guard, when on) before it counts toward a quorum, as at the
	 * first start, since it may have restarted meanwhile.
	 * @return this registry
	 * @throws IllegalStateException if the registry is closed
	 */
	public RedlockRegistry start() {
		this.parts.start();
		return this;
	}

	/**
	 * Stops the registry so that it can be {@link #start() started} again: what an
	 * application context's stop, or a CRaC checkpoint, asks of it. Pending acquisitions
	 * fail with an {@link IllegalStateException}, and so does every acquisition until the
	 * next {@code start()}. Held leases are released on the nodes as {@link #close()}
	 * releases them: {@link Lease#isHeld()} turns false, and a later {@code release()} or
	 * {@code close()} of the lease does nothing. A lease that work still runs under
	 * ({@link #executeLocked}, an auto-extended lease) is not deleted under that work: it
	 * becomes lost at once (its listeners hear it, {@code executeLocked} throws
	 * {@link io.github.redlock.LockLostException}) and the lock expires on the nodes
	 * within its TTL, as after a crash. Then every connection to the nodes closes; the
	 * threads and the Lettuce resources stay for the next start. Does nothing if stopped
	 * or closed already.
	 */
	public void stop() {
		this.parts.stop();
	}

	/**
	 * Returns whether the registry takes acquisitions: it is neither stopped nor closed.
	 * @return whether it runs
	 */
	public boolean isRunning() {
		return this.parts.isRunning();
	}

	@Override
	public Lease acquire(String key, Duration ttl, Duration waitTime) throws InterruptedException {
		return acquire(key, ttl, waitTime, false);
	}

	@Override
	public Lease acquire(String key, Duration ttl, Duration waitTime, boolean autoExtend) throws InterruptedException {
		return this.parts.kinds.exclusive(key, ttl, waitTime, autoExtend);
	}

	/**
	 * {@inheritDoc} Here: the wait time, the connect timeout and two rounds of calls to
	 * the nodes (the last attempt and its fencing round).
	 */
	@Override
	public Duration decisionBound(Duration waitTime) {
		return this.parts.engine.decisionBound(waitTime);
	}

	@Override
	public Lease acquire(String key) throws InterruptedException {
		return acquire(key, this.parts.engine.settings().defaultTtl(), this.parts.engine.settings().defaultWaitTime());
	}

	@Override
	public Optional<Lease> tryAcquire(String key, Duration ttl) {
		try {
			return Optional.of(acquire(key, ttl, Duration.ZERO));
		}
		catch (LockAcquisitionException ex) {
			return AcquisitionAwait.emptyUnlessUnavailable(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
	}

	@Override
	public CompletableFuture<Lease> acquireAsync(String key, Duration ttl, Duration waitTime) {
		return acquireAsync(key, ttl, waitTime, false);
	}

	@Override
	public CompletableFuture<Lease> acquireAsync(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return this.parts.kinds.exclusiveAsync(key, ttl, waitTime, autoExtend);
	}

	@Override
	public <T extends @Nullable Object> T executeLocked(String key, Duration ttl, Duration waitTime, Callable<T> action)
			throws Exception {
		Objects.requireNonNull(action, "action must not be null");
		return ((ReentrantLease) acquire(key, ttl, waitTime, true)).callHeld(action);
	}

	@Override
	public Lock obtain(String key) {
		return this.parts.kinds.lock(key);
	}

	@Override
	public Lease acquireRead(String key, Duration ttl, Duration waitTime) {
		return acquireRead(key, ttl, waitTime, false);
	}

	/**
	 * {@inheritDoc}
	 * @throws LockAcquisitionException if it could not be acquired in time, or the thread
	 * was interrupted while waiting (its interrupted status is set again)
	 */
	@Override
	public Lease acquireRead(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return this.parts.kinds.read(key, ttl, waitTime, autoExtend);
	}

	@Override
	public Lease acquireWrite(String key, Duration ttl, Duration waitTime) {
		return acquireWrite(key, ttl, waitTime, false);
	}

	/**
	 * {@inheritDoc}
	 * @throws LockAcquisitionException if it could not be acquired in time, if the thread
	 * holds the read lock, or if it was interrupted while waiting
	 */
	@Override
	public Lease acquireWrite(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return this.parts.kinds.write(key, ttl, waitTime, autoExtend);
	}

	@Override
	public CompletableFuture<Lease> acquireReadAsync(String key, Duration ttl, Duration waitTime) {
		return acquireReadAsync(key, ttl, waitTime, false);
	}

	@Override
	public CompletableFuture<Lease> acquireReadAsync(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return this.parts.kinds.readAsync(key, ttl, waitTime, autoExtend);
	}

	@Override
	public CompletableFuture<Lease> acquireWriteAsync(String key, Duration ttl, Duration waitTime) {
		return acquireWriteAsync(key, ttl, waitTime, false);
	}

	@Override
	public CompletableFuture<Lease> acquireWriteAsync(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		return this.parts.kinds.writeAsync(key, ttl, waitTime, autoExtend);
	}

	@Override
	public ReadWriteLock obtainReadWrite(String key) {
		return this.parts.kinds.readWriteLock(key);
	}

	@Override
	public LockSemaphore semaphore(String key, int permits) {
		return this.parts.kinds.semaphore(key, permits);
	}

	@Override
	public LockInfo inspect(String key) {
		this.parts.engine.leases().checkOpen();
		KeyLayout.check(key);
		return this.parts.diagnostics.inspect(key);
	}

	/**
	 * Asks every node, in parallel, whether it counts toward a quorum now: it must be
	 * connected, answer a script reading the node marker within the node timeout, and not
	 * be kept out by the restart guard. Takes at most about the node timeout; never
	 * throws for a node's failure. For health checks: locks can be acquired while at
	 * least {@link #quorum()} nodes are usable.
	 * @return the state of each node, in configuration order
	 */
	public List<NodeStatus> checkNodes() {
		this.parts.engine.leases().checkOpen();
		return this.parts.diagnostics.checkNodes();
	}

	/**
	 * Takes from their holders the leases this registry holds on {@code key}, for an
	 * operator whose holder hangs: each is declared lost first, so that its holder finds
	 * it gone ({@link Lease#isHeld()} is {@code false}, listeners hear
	 * {@link io.github.redlock.LockLostException} with {@code reason}, the annotated
	 * method's caller gets it as the lost-lock policy says), then deleted on every node,
	 * so that another holder can acquire it at once. The work under it keeps running
	 * without the lock until it next checks: only a fencing token protects the store from
	 * it meanwhile. Other processes' leases on the key are not touched. Waits at most
	 * about the node timeout for the deletions.
	 * @param key the lock's key, as the application gives it (without the key prefix)
	 * @param reason why, for the holder's {@code LockLostException} and the log
	 * @return how many leases were revoked: 0 if this registry held none on the key
	 */
	public int revoke(String key, String reason) {
		this.parts.engine.leases().checkOpen();
		KeyLayout.check(key);
		return this.parts.engine.leases().revoke(key, reason, this.parts.fleet.callBoundNanos());
	}

	/**
	 * Returns where each node stands toward the quorum now, as the connection events and
	 * the restart guard say. Asks no node, so it is cheap enough for a gauge.
	 * @return each node's state by its URI without credentials (a cluster member, by its
	 * name), in configuration order
	 */
	public Map<String, NodeState> nodeStates() {
		return this.parts.fleet.states();
	}

	/**
	 * Returns the registry's tuning.
	 * @return the settings
	 */
	public RedlockSettings settings() {
		return this.parts.engine.settings();
	}

	/**
	 * Returns how many nodes the registry uses.
	 * @return the number of nodes
	 */
	public int nodeCount() {
		return this.parts.fleet.size();
	}

	/**
	 * Returns how many nodes must agree for a lock to be acquired or extended.
	 * @return the quorum
	 */
	public int quorum() {
		return this.parts.fleet.quorum();
	}

	/**
	 * Returns how many nodes count toward a quorum now: connected, as the last connection
	 * event said, and not kept out by the restart guard. Asks no node, so it is cheap
	 * enough for a gauge; a node that hangs without dropping its connection still counts
	 * until its calls time out ({@link #checkNodes()} asks each node). Zero before
	 * {@link #start()} or the first lock operation.
	 * @return the number of usable nodes
	 */
	public int usableNodes() {
		return this.parts.fleet.usable();
	}

	/**
	 * Returns how many nodes count toward no quorum now because their clock jumped or is
	 * far off the other nodes' ({@link io.github.redlock.NodeFailure.Kind#CLOCK}): each
	 * sits out until its clock has been steady for the maximum TTL. A member that is a
	 * cluster counts once, whichever of its masters it is. Asks no node (each node's
	 * clock is read once a second in the background), so it is cheap enough for a gauge;
	 * {@link #checkNodes()} says which nodes and why. Always 0 with the restart guard
	 * off, which keeps no node out for a time.
	 * @return the number of nodes out for their clocks
	 */
	public int clockFaultNodes() {
		return this.parts.fleet.clockFaults();
	}

	/**
	 * Returns how many more nodes may fail before no lock can be acquired or extended:
	 * {@code usableNodes() - quorum()}, at least 0. Alert when it reaches 0, before the
	 * next node matters.
	 * @return the node failures the quorum still tolerates
	 */
	public int toleratedFailures() {
		return Math.max(0, usableNodes() - this.parts.fleet.quorum());
	}

	/**
	 * Returns whether waiters are woken by release hints when another process releases
	 * (see {@link Builder#releaseHints}).
	 * @return whether release hints are on
	 */
	public boolean releaseHints() {
		return this.parts.hints != null;
	}

	/**
	 * Returns the registry's parts, for tests in this package.
	 */
	RegistryEngine parts() {
		return this.parts;
	}

	/**
	 * Returns how many acquisitions this registry has made so far.
	 * @return the number of acquisitions
	 */
	public long acquisitions() {
		return this.parts.engine.acquisitions();
	}

	/**
	 * Returns how many acquisitions needed a second round to align the fencing counters
	 * of the agreeing nodes: rare once the nodes have seen the same acquisitions.
	 * @return the number of second rounds
	 */
	public long fencingRounds() {
		return this.parts.engine.fencingRounds();
	}

	/**
	 * Returns how many leases this registry holds now.
	 * @return the number of held leases
	 */
	public int heldLeases() {
		return this.parts.engine.leases().size();
	}

	/**
	 * Releases every held lease, stops the watchdog and closes the connections. Locks
	 * that could not be released expire on the nodes at the end of their TTL.
	 */
	@Override
	public void close() {
		this.parts.close();
	}

	@Override
	public String toString() {
		return "RedlockRegistry" + this.parts.fleet + " (quorum " + this.parts.fleet.quorum() + ")";
	}

	/**
	 * Builds a {@link RedlockRegistry}. Every option but the nodes has a default.
	 */
	public static final class Builder {

		private final RegistryOptions options = new RegistryOptions();

		private Builder() {
		}

		/**
		 * Adds nodes, each a {@code redis://} or {@code rediss://} URI of an independent
		 * master: {@code redis://[[user]:password@]host[:port][/database]}.
		 * @param uris the node URIs
		 * @return this builder
		 */
		public Builder nodes(String... uris) {
			return nodes(List.of(uris));
		}

		/**
		 * Adds nodes, each a {@code redis://} or {@code rediss://} URI.
		 * @param uris the node URIs
		 * @return this builder
		 */
		public Builder nodes(List<String> uris) {
			this.options.nodes.addAll(uris);
			return this;
		}

		/**
		 * Adds one member of the quorum that is a Redis or Valkey Cluster, given by the
		 * {@code redis://} or {@code rediss://} URIs of some of its servers (seeds): the
		 * member's vote for a key is the answer of the master that owns the key's slot.
		 * Call it once per member (3 or 5 of them); a registry has clusters or
		 * {@link #nodes(String...) nodes}, not both.
		 * @param seedUris the cluster's seed URIs
		 * @return this builder
		 */
		public Builder cluster(String... seedUris) {
			this.options.clusters.add(List.of(seedUris));
			return this;
		}

		/**
		 * Sets how long one node may take to answer before it counts as failed; small
		 * next to the TTL (default 100ms).
		 * @param nodeTimeout the per-node timeout
		 * @return this builder
		 */
		public Builder nodeTimeout(Duration nodeTimeout) {
			this.options.nodeTimeout = nodeTimeout;
			return this;
		}

		/**
		 * Sets how long connecting to a node may take (default 2s).
		 * @param connectTimeout the connect timeout
		 * @return this builder
		 */
		public Builder connectTimeout(Duration connectTimeout) {
			this.options.connectTimeout = connectTimeout;
			return this;
		}

		/**
		 * Sets the share of the TTL allowed for clock drift between processes (default
		 * 0.01); 2ms are added to it.
		 * @param driftFactor the drift factor, from 0 to below 0.5
		 * @return this builder
		 */
		public Builder driftFactor(double driftFactor) {
			this.options.driftFactor = driftFactor;
			return this;
		}

		/**
		 * Sets how often a waiter polls for a lock held by another process (default
		 * 50ms), plus the jitter, never later than the holder's remaining time to live. A
		 * waiter for a lease of this registry is woken when it ends, and one for a holder
		 * elsewhere by a {@link #releaseHints release hint}, whatever the delay.
		 * @param retryDelay the retry delay
		 * @return this builder
		 */
		public Builder retryDelay(Duration retryDelay) {
			this.options.retryDelay = retryDelay;
			return this;
		}

		/**
		 * Sets the most random delay added to the retry delay, so that contenders fall
		 * out of step (default 50ms).
		 * @param retryJitter the jitter
		 * @return this builder
		 */
		public Builder retryJitter(Duration retryJitter) {
			this.options.retryJitter = retryJitter;
			return this;
		}

		/**
		 * Sets the prefix of every key written on the nodes (default {@code redlock:}).
		 * @param keyPrefix the prefix, possibly empty
		 * @return this builder
		 */
		public Builder keyPrefix(String keyPrefix) {
			this.options.keyPrefix = keyPrefix;
			return this;
		}

		/**
		 * Sets the TTL used when none is given (default 30s).
		 * @param defaultTtl the default TTL
		 * @return this builder
		 */
		public Builder defaultTtl(Duration defaultTtl) {
			this.options.defaultTtl = defaultTtl;
			return this;
		}

		/**
		 * Sets the wait time used when none is given (default 10s).
		 * @param defaultWaitTime the default wait time
		 * @return this builder
		 */
		public Builder defaultWaitTime(Duration defaultWaitTime) {
			this.options.defaultWaitTime = defaultWaitTime;
			return this;
		}

		/**
		 * Sets the largest TTL accepted (default 60s). It is also how long a node that
		 * restarted counts toward no quorum, so that every lock it forgot has expired.
		 * Work that runs longer keeps a shorter lease extended instead.
		 * @param maxTtl the maximum TTL
		 * @return this builder
		 */
		public Builder maxTtl(Duration maxTtl) {
			this.options.maxTtl = maxTtl;
			return this;
		}

		/**
		 * Sets whether a node that restarted or lost its data is kept out of every quorum
		 * until {@link #maxTtl(Duration) the maximum TTL} has passed (default on). Turn
		 * it off only for nodes that run with {@code appendfsync always}, or for
		 * throwaway development nodes.
		 * @param restartGuard whether to guard against restarted nodes
		 * @return this builder
		 */
		public Builder restartGuard(boolean restartGuard) {
			this.options.restartGuard = restartGuard;
			return this;
		}

		/**
		 * Sets whether a node whose memory policy may evict keys that carry a TTL (a
		 * {@code maxmemory} with any {@code maxmemory-policy} but {@code noeviction})
		 * still counts toward quorums (default off: such a node counts toward none, since
		 * an evicted lock key breaks exclusion and an evicted fencing counter can repeat
		 * a token).
		 * @param acceptEviction whether to accept nodes that may evict locks
		 * @return this builder
		 */
		public Builder acceptEviction(boolean acceptEviction) {
			this.options.acceptEviction = acceptEviction;
			return this;
		}

		/**
		 * Sets whether waiters are woken when another process releases the lock (or a
		 * permit of the semaphore) they wait for: the release script publishes on a
		 * channel named as the lock's key ({@code <prefix>lock:permits:{<key>}} for a
		 * semaphore), and the registry subscribes to it on every node (on a second
		 * connection per node) only while it has waiters for a holder elsewhere. A node
		 * that forbids publish/subscribe is polled instead, as every node is with this
		 * turned off: every {@link #retryDelay retry delay} plus jitter, never later than
		 * the holder's remaining time to live. Waiters for a lock held in this registry
		 * are woken when it is released either way. Defaults to {@code true}.
		 * @param releaseHints whether to subscribe to release hints
		 * @return this builder
		 */
		public Builder releaseHints(boolean releaseHints) {
			this.options.releaseHints = releaseHints;
			return this;
		}

		/**
		 * Sets how many timeouts in a row make a node suspected of silence (default 3),
		 * when it has also sent nothing for as many {@link #nodeTimeout node timeouts}
		 * (300ms by default); a suspected node is sent a probe ({@code TIME}) and falls
		 * silent if that goes unanswered within the {@link #silentNodeProbeInterval probe
		 * interval}. A silent node counts toward no quorum and is sent no lock command
		 * until it answers a probe (an error reply counts), so that a node whose packets
		 * are dropped without a reset (a black hole) or whose server is frozen does not
		 * pile up commands that will never be answered. At full load a silent node is
		 * found in about 1.5s with the defaults.
		 * @param silentNodeTimeouts the number of timeouts in a row, at least 1
		 * @return this builder
		 */
		public Builder silentNodeTimeouts(int silentNodeTimeouts) {
			this.options.silentNodeTimeouts = silentNodeTimeouts;
			return this;
		}

		/**
		 * Sets how often a silent node is probed (default 1s, at most 1 minute): it is
		 * probed at once when it falls silent, then this long after each probe that got
		 * no answer. A probe waits this long for its answer too (at least the
		 * {@link #nodeTimeout node timeout}), so that a node that is only slow is told
		 * from one that does not answer. The first answer ends the silence, and the node
		 * counts again if its trust allows (see {@link #restartGuard}).
		 * @param silentNodeProbeInterval the probe interval
		 * @return this builder
		 */
		public Builder silentNodeProbeInterval(Duration silentNodeProbeInterval) {
			this.options.silentNodeProbeInterval = silentNodeProbeInterval;
			return this;
		}

		/**
		 * Sets the longest a lease may be held through extensions, counted from its
		 * acquisition (default 1h).
		 * @param maxHold the maximum hold time
		 * @return this builder
		 */
		public Builder maxHold(Duration maxHold) {
			this.options.maxHold = maxHold;
			return this;
		}

		/**
		 * Sets how long a key's fencing counter is kept on the nodes after its last use
		 * (default 1 day); must be far longer than the clock skew between nodes, and at
		 * least 2 seconds.
		 * @param fencingRetention the retention
		 * @return this builder
		 */
		public Builder fencingRetention(Duration fencingRetention) {
			this.options.fencingRetention = fencingRetention;
			return this;
		}

		/**
		 * Sets the user name sent with {@link #password(CharSequence) the password} to
		 * every node whose URI has no credentials of its own (Redis 6 ACL users). Without
		 * it, the password authenticates the {@code default} user.
		 * @param username the ACL user name, or {@code null}
		 * @return this builder
		 */
		public Builder username(@Nullable String username) {
			this.options.username(username);
			return this;
		}

		/**
		 * Sets the password for every node whose URI has no credentials of its own, so
		 * that it can come from a secret store rather than the URIs. It is sent on every
		 * connection and reconnection, and never shown.
		 * @param password the password, or {@code null}
		 * @return this builder
		 */
		public Builder password(@Nullable CharSequence password) {
			this.options.password(password);
			return this;
		}

		/**
		 * Connects to every node over TLS, whatever its URI's scheme. By default only
		 * {@code rediss://} nodes use TLS, trusting the JVM's default trust store and
		 * verifying the host name.
		 * @param ssl whether every node uses TLS
		 * @return this builder
		 */
		public Builder ssl(boolean ssl) {
			this.options.ssl = ssl;
			return this;
		}

		/**
		 * Connects to every node over TLS with the given trust material, client key and
		 * certificate (for mutual TLS), protocols and ciphers, such as
		 * {@code SslOptions.builder().jdkSslProvider().trustManager(trustManagerFactory).build()}
		 * for a private CA. Implies {@link #ssl(boolean) ssl(true)}. Host names are still
		 * verified unless a node's URI says {@code verifyPeer=CA} or {@code NONE}.
		 * @param sslOptions the TLS options
		 * @return this builder
		 */
		public Builder sslOptions(SslOptions sslOptions) {
			this.options.sslOptions = Objects.requireNonNull(sslOptions, "sslOptions");
			this.options.ssl = true;
			return this;
		}

		/**
		 * Shares Lettuce client resources (event loops, timers) with other clients. The
		 * registry does not shut them down: its node clients use a copy that shares them
		 * and adds write coalescing to each node channel, after their own
		 * {@code NettyCustomizer}. By default it creates its own.
		 * @param clientResources the resources
		 * @return this builder
		 */
		public Builder clientResources(ClientResources clientResources) {
			this.options.clientResources = clientResources;
			return this;
		}

		/**
		 * Tunes the Lettuce client options of every node (SSL, socket options and the
		 * like) after the registry has set its own: auto-reconnect, commands rejected
		 * while disconnected, the per-node timeout, no replay after a reconnect, and a
		 * request queue of 50,000 commands per connection (more sent and unanswered are
		 * refused at once). Overriding those weakens the guarantees.
		 * @param clientOptions what to change on each node's options
		 * @return this builder
		 */
		public Builder clientOptions(Consumer<ClientOptions.Builder> clientOptions) {
			this.options.clientOptions = Objects.requireNonNull(clientOptions, "clientOptions");
			return this;
		}

		/**
		 * Adds a listener that hears of every acquisition, failed acquisition, release
		 * and lost lease, for metrics or auditing.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(RegistryListener listener) {
			this.options.listeners.add(Objects.requireNonNull(listener, "listener"));
			return this;
		}

		/**
		 * Sets what traces every acquisition and hold, such as the Spring Boot module's
		 * Micrometer Observations; by default none, which costs one null check per
		 * acquisition.
		 * @param observer the observer, or {@code null} for none
		 * @return this builder
		 */
		public Builder observer(@Nullable LockObserver observer) {
			this.options.observer = observer;
			return this;
		}

		/** Sets, for tests, the options no public method sets (the clock, coalescing). */
		Builder tune(Consumer<RegistryOptions> change) {
			change.accept(this.options);
			return this;
		}

		/**
		 * Validates the options and builds the registry. No connection is made until
		 * {@link RedlockRegistry#start()} or the first lock operation.
		 * @return the registry
		 * @throws InvalidOptionException naming the option and the fix if an option is
		 * invalid
		 */
		public RedlockRegistry build() {
			return new RedlockRegistry(this.options.engine());
		}

	}

}
