package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockInfo;
import io.github.redlock.LockRegistry;
import io.github.redlock.RedlockException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

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
 * Keys on the nodes are {@code <keyPrefix>lock:<key>} for the lock and
 * {@code <keyPrefix>fence:<key>} for its fencing counter. Leases kept by
 * {@link #executeLocked} and {@link #obtain} locks are extended on one shared scheduler
 * thread, whatever their number. Close the registry to release every held lease and close
 * the connections.
 *
 * @author redlock contributors
 */
public final class RedlockRegistry implements LockRegistry, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedlockRegistry.class);

	/**
	 * Shortest counter retention: a new counter starts from a clock rounded down to the
	 * second, so a shorter one could start again at the token it had.
	 */
	private static final Duration MIN_FENCING_RETENTION = Duration.ofSeconds(2);

	/** Longest key accepted, in characters, before the prefix is added. */
	public static final int MAX_KEY_LENGTH = 1024;

	private final RedlockSettings settings;

	private final List<NodeClient> nodes;

	private final int quorum;

	private final MonotonicClock clock;

	private final Validity validity;

	private final ClientResources resources;

	private final boolean ownsResources;

	private final ScheduledThreadPoolExecutor scheduler;

	private final LockValues values = new LockValues();

	private final String retentionMillis;

	private final String lockPrefix;

	private final String fencePrefix;

	private final String markerKey;

	private final long minimumTtlNanos;

	private final long callBoundNanos;

	private final Set<RedlockLease> live = ConcurrentHashMap.newKeySet();

	private final ConcurrentHashMap<HoldKey, Hold> holds = new ConcurrentHashMap<>();

	private final AtomicBoolean closed = new AtomicBoolean();

	private final LongAdder acquisitions = new LongAdder();

	private final LongAdder fencingRounds = new LongAdder();

	private final List<RegistryListener> listeners;

	private volatile CompletableFuture<Void> connected;

	private RedlockRegistry(Builder builder, List<NodeAddress> addresses) {
		this.settings = new RedlockSettings(builder.nodeTimeout, builder.connectTimeout, builder.driftFactor,
				builder.retryDelay, builder.retryJitter, builder.keyPrefix, builder.defaultTtl, builder.defaultWaitTime,
				builder.maxTtl, builder.maxHold, builder.fencingRetention, builder.restartGuard);
		this.markerKey = builder.keyPrefix + "node";
		this.listeners = List.copyOf(builder.listeners);
		this.clock = builder.clock;
		this.validity = new Validity(builder.driftFactor);
		this.ownsResources = builder.clientResources == null;
		this.resources = this.ownsResources ? DefaultClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
			.build() : builder.clientResources;
		RestartGuard guard = builder.restartGuard
				? new RestartGuard(true, builder.maxTtl.toNanos() + this.validity.driftNanos(builder.maxTtl.toNanos()),
						builder.keyPrefix + "node")
				: RestartGuard.DISABLED;
		List<NodeClient> clients = new ArrayList<>(addresses.size());
		for (NodeAddress address : addresses) {
			clients.add(new NodeClient(address, this.resources, builder.nodeTimeout, builder.connectTimeout, guard,
					builder.clientOptions));
		}
		this.nodes = List.copyOf(clients);
		this.quorum = this.nodes.size() / 2 + 1;
		this.scheduler = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "redlock-watchdog");
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler.setRemoveOnCancelPolicy(true);
		this.retentionMillis = String.valueOf(builder.fencingRetention.toMillis());
		this.lockPrefix = builder.keyPrefix + "lock:";
		this.fencePrefix = builder.keyPrefix + "fence:";
		this.minimumTtlNanos = 3 * builder.nodeTimeout.toNanos();
		this.callBoundNanos = 3 * builder.nodeTimeout.toNanos() + TimeUnit.SECONDS.toNanos(1);
	}

	/**
	 * Creates a builder.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Connects to every node, waiting at most the connect timeout. Optional: the first
	 * lock operation connects if this was not called. A node that cannot be reached does
	 * not fail the start; it is retried when needed and counts toward no quorum until it
	 * answers.
	 * @return this registry
	 */
	public RedlockRegistry start() {
		CompletableFuture<Void> ready = connect();
		try {
			ready.get(this.settings.connectTimeout().toNanos() + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedlockException("Interrupted while connecting to the redlock nodes", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.warn("Not every redlock node answered within " + this.settings.connectTimeout());
		}
		long up = this.nodes.stream().filter(NodeClient::isConnected).count();
		if (up < this.quorum) {
			logger.warn("Only " + up + " of " + this.nodes.size() + " redlock nodes are reachable; " + this.quorum
					+ " are needed for any lock to be acquired");
		}
		return this;
	}

	private CompletableFuture<Void> connect() {
		CompletableFuture<Void> ready = this.connected;
		if (ready == null) {
			synchronized (this) {
				ready = this.connected;
				if (ready == null) {
					ready = CompletableFuture
						.allOf(this.nodes.stream().map(NodeClient::connect).toArray(CompletableFuture[]::new));
					this.connected = ready;
				}
			}
		}
		return ready;
	}

	@Override
	public Lease acquire(String key, Duration ttl, Duration waitTime) throws InterruptedException {
		checkOpen();
		checkKey(key);
		checkTtl(ttl);
		checkWaitTime(waitTime);
		HoldKey holdKey = new HoldKey(Thread.currentThread(), key);
		Hold hold = this.holds.get(holdKey);
		if (hold != null && hold.lease.isHeld() && hold.count.getAndIncrement() > 0) {
			return new ReentrantLease(this, hold);
		}
		RedlockLease lease = await(acquireLease(key, ttl, waitTime));
		Hold fresh = new Hold(holdKey, lease);
		this.holds.put(holdKey, fresh);
		return new ReentrantLease(this, fresh);
	}

	@Override
	public Lease acquire(String key, Duration ttl, Duration waitTime, boolean autoExtend) throws InterruptedException {
		Lease lease = acquire(key, ttl, waitTime);
		if (autoExtend) {
			((ReentrantLease) lease).lease().autoExtend(ttl);
		}
		return lease;
	}

	@Override
	public CompletableFuture<Lease> acquireAsync(String key, Duration ttl, Duration waitTime, boolean autoExtend) {
		checkOpen();
		checkKey(key);
		checkTtl(ttl);
		checkWaitTime(waitTime);
		CompletableFuture<RedlockLease> lease = acquireLease(key, ttl, waitTime);
		CompletableFuture<Lease> result = lease.thenApply((held) -> {
			if (autoExtend) {
				held.autoExtend(ttl);
			}
			return held;
		});
		// cancelling the caller's future abandons the attempt, and a lease that arrives
		// as the caller gives up is released
		result.whenComplete((held, ex) -> {
			if (ex != null) {
				lease.cancel(false);
			}
		});
		lease.thenAccept((held) -> {
			if (result.isCancelled()) {
				held.releaseAsync();
			}
		});
		return result;
	}

	@Override
	public Lease acquire(String key) throws InterruptedException {
		return acquire(key, this.settings.defaultTtl(), this.settings.defaultWaitTime());
	}

	@Override
	public Optional<Lease> tryAcquire(String key, Duration ttl) {
		try {
			return Optional.of(acquire(key, ttl, Duration.ZERO));
		}
		catch (LockAcquisitionException ex) {
			return Optional.empty();
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

	private CompletableFuture<RedlockLease> acquireLease(String key, Duration ttl, Duration waitTime) {
		Acquisition acquisition = new Acquisition(this, key, ttl, waitTime);
		CompletableFuture<Void> ready = connect();
		if (ready.isDone()) {
			acquisition.attempt();
		}
		else {
			ready.thenRun(acquisition::attempt);
		}
		return acquisition.result();
	}

	/**
	 * Tells every {@link RegistryListener} of an event; a failing listener is logged.
	 */
	void tell(Consumer<RegistryListener> event) {
		for (RegistryListener listener : this.listeners) {
			try {
				event.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("RegistryListener " + listener + " failed", ex);
			}
		}
	}

	boolean hasListeners() {
		return !this.listeners.isEmpty();
	}

	private static RedlockLease await(CompletableFuture<RedlockLease> future) throws InterruptedException {
		try {
			return future.get();
		}
		catch (InterruptedException ex) {
			future.cancel(false);
			throw ex;
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof LockAcquisitionException failure) {
				// rethrown from the caller's thread, so that its stack trace shows the
				// caller
				throw new LockAcquisitionException(failure.getMessage(), failure);
			}
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new RedlockException("Lock acquisition failed", cause);
		}
	}

	@Override
	public <T> T executeLocked(String key, Duration ttl, Duration waitTime, Callable<T> action) throws Exception {
		Objects.requireNonNull(action, "action must not be null");
		Lease lease = acquire(key, ttl, waitTime, true);
		RedlockLease held = ((ReentrantLease) lease).lease();
		try {
			T result;
			try {
				result = action.call();
			}
			catch (Exception | Error ex) {
				if (!held.isHeld()) {
					ex.addSuppressed(held.lossCause());
				}
				throw ex;
			}
			if (!held.isHeld()) {
				throw held.lossCause();
			}
			return result;
		}
		finally {
			lease.release();
		}
	}

	@Override
	public Lock obtain(String key) {
		checkKey(key);
		return new LockView(this, key);
	}

	@Override
	public LockInfo inspect(String key) {
		checkOpen();
		checkKey(key);
		String[] keys = nodeKeys(key);
		List<LockInfo.NodeState> result = askEveryNode(
				(node) -> node.evalList(Script.INSPECT, keys)
					.thenApply((reply) -> nodeState(node, reply))
					.exceptionally((ex) -> new LockInfo.NodeState(node.toString(), null, null, null, 0,
							node.classify(ex).toString())),
				(node) -> new LockInfo.NodeState(node.toString(), null, null, null, 0, "no answer"),
				"inspecting lock '" + key + "'");
		return new LockInfo(key, this.quorum, result);
	}

	private static LockInfo.NodeState nodeState(NodeClient node, List<Object> reply) {
		String value = (String) reply.get(0);
		long pttl = (reply.get(1) instanceof Long millis) ? millis : -2;
		long counter = (reply.get(2) != null) ? Long.parseLong((String) reply.get(2)) : 0;
		if (value == null) {
			return new LockInfo.NodeState(node.toString(), null, null, null, counter, null);
		}
		int separator = value.indexOf(':');
		String owner = (separator >= 0) ? value.substring(separator + 1) : "unknown owner";
		String secret = (separator >= 0) ? value.substring(0, separator) : value;
		return new LockInfo.NodeState(node.toString(), owner, LockValues.fingerprint(secret),
				Duration.ofMillis(Math.max(0, pttl)), counter, null);
	}

	void unlock(String key) {
		Hold hold = this.holds.get(new HoldKey(Thread.currentThread(), key));
		if (hold == null) {
			throw new IllegalMonitorStateException(
					"Lock '" + key + "' is not held by thread '" + Thread.currentThread().getName() + "'");
		}
		if (releaseHold(hold) && hold.lease.isLost()) {
			throw hold.lease.lossCause();
		}
	}

	/**
	 * Counts down one hold; releases the lease when it was the last.
	 * @return whether the lease was released
	 */
	boolean releaseHold(Hold hold) {
		if (!lastHold(hold)) {
			return false;
		}
		hold.lease.release();
		return true;
	}

	/**
	 * Counts down one hold; releases the lease, without blocking, when it was the last.
	 */
	CompletableFuture<Void> releaseHoldAsync(Hold hold) {
		return lastHold(hold) ? hold.lease.releaseAsync() : CompletableFuture.completedFuture(null);
	}

	private boolean lastHold(Hold hold) {
		if (hold.count.updateAndGet((count) -> Math.max(0, count - 1)) > 0) {
			return false;
		}
		this.holds.remove(hold.key, hold);
		return true;
	}

	/**
	 * Deletes the lock on every node where it holds {@code value}. On each node the
	 * release is sent only once that node has answered the acquisition, so that it can
	 * never overtake the acquire script (as it could while a NOSCRIPT reply made the
	 * script be sent again).
	 * @param keys the lock and counter keys
	 * @param value the lock value
	 * @param acquisition the acquisition that wrote {@code value}
	 */
	CompletableFuture<Void> releaseEverywhere(String[] keys, String value, QuorumCall acquisition) {
		String[] lockKey = { keys[0] };
		CompletableFuture<?>[] calls = new CompletableFuture<?>[this.nodes.size()];
		for (int i = 0; i < calls.length; i++) {
			NodeClient node = this.nodes.get(i);
			calls[i] = acquisition.replied(i).thenCompose((ignored) -> node.eval(Script.RELEASE, lockKey, value));
		}
		return CompletableFuture.allOf(calls);
	}

	RedlockLease register(RedlockLease lease) {
		this.live.add(lease);
		if (this.closed.get()) {
			lease.releaseAsync();
		}
		return lease;
	}

	void forget(RedlockLease lease) {
		this.live.remove(lease);
	}

	private void checkOpen() {
		if (this.closed.get()) {
			throw new IllegalStateException("This LockRegistry is closed: no lock can be acquired through it");
		}
	}

	private static void checkKey(String key) {
		if (key == null) {
			throw new IllegalArgumentException("Lock key must not be null");
		}
		if (key.isEmpty()) {
			throw new IllegalArgumentException("Lock key must not be empty");
		}
		if (key.length() > MAX_KEY_LENGTH) {
			throw new IllegalArgumentException("Lock key is " + key.length() + " characters long; the limit is "
					+ MAX_KEY_LENGTH + ": lock on a shorter name, such as an id or a hash of the resource");
		}
	}

	Duration checkTtl(Duration ttl) {
		if (ttl == null || ttl.isNegative() || ttl.isZero()) {
			throw new IllegalArgumentException("ttl must be positive, was " + ttl);
		}
		if (ttl.toNanos() < this.minimumTtlNanos) {
			throw new IllegalArgumentException("ttl " + ttl.toMillis() + "ms is too short: it must be at least 3 times"
					+ " the node timeout (" + this.settings.nodeTimeout().toMillis()
					+ "ms) so that a lock can be valid after waiting for the nodes; raise the ttl or lower the node timeout");
		}
		if (ttl.compareTo(this.settings.maxTtl()) > 0) {
			throw new IllegalArgumentException("ttl " + ttl + " is above the maximum TTL " + this.settings.maxTtl()
					+ ": lower the ttl (the watchdog extends a lease for as long as the work runs) or raise maxTtl,"
					+ " which is also how long a restarted node is kept out of quorums");
		}
		return ttl;
	}

	private static void checkWaitTime(Duration waitTime) {
		if (waitTime == null || waitTime.isNegative()) {
			throw new IllegalArgumentException("waitTime must be zero or positive, was " + waitTime);
		}
	}

	String[] nodeKeys(String key) {
		return new String[] { this.lockPrefix + key, this.fencePrefix + key, this.markerKey };
	}

	/**
	 * Returns the registry's tuning.
	 * @return the settings
	 */
	public RedlockSettings settings() {
		return this.settings;
	}

	/**
	 * Returns how many nodes the registry uses.
	 * @return the number of nodes
	 */
	public int nodeCount() {
		return this.nodes.size();
	}

	/**
	 * Returns how many nodes must agree for a lock to be acquired or extended.
	 * @return the quorum
	 */
	public int quorum() {
		return this.quorum;
	}

	/**
	 * Asks every node, in parallel, whether it counts toward a quorum now: it must be
	 * connected, answer a {@code PING} within the node timeout, and not be kept out by
	 * the restart guard. Takes at most about the node timeout; never throws for a node's
	 * failure. For health checks: locks can be acquired while at least {@link #quorum()}
	 * nodes are usable.
	 * @return the state of each node, in configuration order
	 */
	public List<NodeStatus> checkNodes() {
		checkOpen();
		return askEveryNode(NodeClient::check, (node) -> new NodeStatus(node.toString(), false, null, "no answer"),
				"checking the redlock nodes");
	}

	/**
	 * Asks every node at once and waits for the answers, all within one call bound; a
	 * node that has not answered by then is described by {@code noAnswer}.
	 * @return the answers, in configuration order
	 */
	private <T> List<T> askEveryNode(Function<NodeClient, CompletableFuture<T>> question,
			Function<NodeClient, T> noAnswer, String doing) {
		List<CompletableFuture<T>> answers = new ArrayList<>(this.nodes.size());
		for (NodeClient node : this.nodes) {
			answers.add(question.apply(node));
		}
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

	List<NodeClient> nodes() {
		return this.nodes;
	}

	MonotonicClock clock() {
		return this.clock;
	}

	Validity validity() {
		return this.validity;
	}

	ScheduledThreadPoolExecutor scheduler() {
		return this.scheduler;
	}

	LockValues values() {
		return this.values;
	}

	String retentionMillis() {
		return this.retentionMillis;
	}

	long minimumTtlNanos() {
		return this.minimumTtlNanos;
	}

	long callBoundNanos() {
		return this.callBoundNanos;
	}

	/**
	 * Returns how many acquisitions this registry has made so far.
	 * @return the number of acquisitions
	 */
	public long acquisitions() {
		return this.acquisitions.sum();
	}

	/**
	 * Returns how many acquisitions needed a second round to align the fencing counters
	 * of the agreeing nodes: rare once the nodes have seen the same acquisitions.
	 * @return the number of second rounds
	 */
	public long fencingRounds() {
		return this.fencingRounds.sum();
	}

	void countAcquisition(boolean secondRound) {
		this.acquisitions.increment();
		if (secondRound) {
			this.fencingRounds.increment();
		}
	}

	/**
	 * Returns how many leases this registry holds now.
	 * @return the number of held leases
	 */
	public int heldLeases() {
		return this.live.size();
	}

	/**
	 * Releases every held lease, stops the watchdog and closes the connections. Locks
	 * that could not be released expire on the nodes at the end of their TTL.
	 */
	@Override
	public void close() {
		if (!this.closed.compareAndSet(false, true)) {
			return;
		}
		Set<RedlockLease> held = new HashSet<>(this.live);
		if (!held.isEmpty()) {
			logger.info("Releasing " + held.size() + " held lock(s) as the LockRegistry closes");
		}
		CompletableFuture<?>[] releases = held.stream()
			.map(RedlockLease::releaseAsync)
			.toArray(CompletableFuture[]::new);
		try {
			CompletableFuture.allOf(releases).get(this.callBoundNanos, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.debug("Not every lease was released on close", ex);
		}
		this.scheduler.shutdownNow();
		CompletableFuture<?>[] closing = this.nodes.stream()
			.map(NodeClient::closeAsync)
			.toArray(CompletableFuture[]::new);
		try {
			CompletableFuture.allOf(closing)
				.get(this.callBoundNanos + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS);
			if (this.ownsResources) {
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
		return "RedlockRegistry" + this.nodes + " (quorum " + this.quorum + ")";
	}

	record HoldKey(Thread thread, String key) {
	}

	/**
	 * One thread's hold on a lease, counted for reentrancy.
	 */
	static final class Hold {

		private final HoldKey key;

		private final RedlockLease lease;

		private final AtomicInteger count = new AtomicInteger(1);

		Hold(HoldKey key, RedlockLease lease) {
			this.key = key;
			this.lease = lease;
		}

		RedlockLease lease() {
			return this.lease;
		}

	}

	/**
	 * Builds a {@link RedlockRegistry}. Every option but the nodes has a default.
	 */
	public static final class Builder {

		private final List<String> nodes = new ArrayList<>();

		private Duration nodeTimeout = Duration.ofMillis(100);

		private Duration connectTimeout = Duration.ofSeconds(2);

		private double driftFactor = 0.01;

		private Duration retryDelay = Duration.ofMillis(50);

		private Duration retryJitter = Duration.ofMillis(50);

		private String keyPrefix = "redlock:";

		private Duration defaultTtl = Duration.ofSeconds(30);

		private Duration defaultWaitTime = Duration.ofSeconds(10);

		private Duration maxTtl = Duration.ofSeconds(60);

		private Duration maxHold = Duration.ofHours(1);

		private boolean restartGuard = true;

		private Duration fencingRetention = Duration.ofDays(1);

		private ClientResources clientResources;

		private MonotonicClock clock = MonotonicClock.SYSTEM;

		private Consumer<ClientOptions.Builder> clientOptions = (options) -> {
		};

		private final List<RegistryListener> listeners = new ArrayList<>();

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
			this.nodes.addAll(uris);
			return this;
		}

		/**
		 * Sets how long one node may take to answer before it counts as failed; small
		 * next to the TTL (default 100ms).
		 * @param nodeTimeout the per-node timeout
		 * @return this builder
		 */
		public Builder nodeTimeout(Duration nodeTimeout) {
			this.nodeTimeout = nodeTimeout;
			return this;
		}

		/**
		 * Sets how long connecting to a node may take (default 2s).
		 * @param connectTimeout the connect timeout
		 * @return this builder
		 */
		public Builder connectTimeout(Duration connectTimeout) {
			this.connectTimeout = connectTimeout;
			return this;
		}

		/**
		 * Sets the share of the TTL allowed for clock drift between processes (default
		 * 0.01); 2ms are added to it.
		 * @param driftFactor the drift factor, from 0 to below 0.5
		 * @return this builder
		 */
		public Builder driftFactor(double driftFactor) {
			this.driftFactor = driftFactor;
			return this;
		}

		/**
		 * Sets the least delay between two attempts to acquire (default 50ms).
		 * @param retryDelay the retry delay
		 * @return this builder
		 */
		public Builder retryDelay(Duration retryDelay) {
			this.retryDelay = retryDelay;
			return this;
		}

		/**
		 * Sets the most random delay added to the retry delay, so that contenders fall
		 * out of step (default 50ms).
		 * @param retryJitter the jitter
		 * @return this builder
		 */
		public Builder retryJitter(Duration retryJitter) {
			this.retryJitter = retryJitter;
			return this;
		}

		/**
		 * Sets the prefix of every key written on the nodes (default {@code redlock:}).
		 * @param keyPrefix the prefix, possibly empty
		 * @return this builder
		 */
		public Builder keyPrefix(String keyPrefix) {
			this.keyPrefix = keyPrefix;
			return this;
		}

		/**
		 * Sets the TTL used when none is given (default 30s).
		 * @param defaultTtl the default TTL
		 * @return this builder
		 */
		public Builder defaultTtl(Duration defaultTtl) {
			this.defaultTtl = defaultTtl;
			return this;
		}

		/**
		 * Sets the wait time used when none is given (default 10s).
		 * @param defaultWaitTime the default wait time
		 * @return this builder
		 */
		public Builder defaultWaitTime(Duration defaultWaitTime) {
			this.defaultWaitTime = defaultWaitTime;
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
			this.maxTtl = maxTtl;
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
			this.restartGuard = restartGuard;
			return this;
		}

		/**
		 * Sets the longest a lease may be held through extensions, counted from its
		 * acquisition (default 1h).
		 * @param maxHold the maximum hold time
		 * @return this builder
		 */
		public Builder maxHold(Duration maxHold) {
			this.maxHold = maxHold;
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
			this.fencingRetention = fencingRetention;
			return this;
		}

		/**
		 * Shares Lettuce client resources (event loops, timers) with other clients. The
		 * registry does not shut them down. By default it creates its own.
		 * @param clientResources the resources
		 * @return this builder
		 */
		public Builder clientResources(ClientResources clientResources) {
			this.clientResources = clientResources;
			return this;
		}

		/**
		 * Tunes the Lettuce client options of every node (SSL, socket options and the
		 * like) after the registry has set its own: auto-reconnect, commands rejected
		 * while disconnected, and the per-node timeout. Overriding those weakens the
		 * guarantees.
		 * @param clientOptions what to change on each node's options
		 * @return this builder
		 */
		public Builder clientOptions(Consumer<ClientOptions.Builder> clientOptions) {
			this.clientOptions = Objects.requireNonNull(clientOptions, "clientOptions");
			return this;
		}

		/**
		 * Adds a listener that hears of every acquisition, failed acquisition, release
		 * and lost lease, for metrics or auditing.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(RegistryListener listener) {
			this.listeners.add(Objects.requireNonNull(listener, "listener"));
			return this;
		}

		Builder clock(MonotonicClock clock) {
			this.clock = clock;
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
			if (this.nodes.isEmpty()) {
				throw new InvalidOptionException("No nodes",
						"give the URIs of independent masters, such as redis://10.0.0.1:6379 (3 or 5 of them)");
			}
			List<NodeAddress> addresses = new ArrayList<>();
			Set<String> seen = new HashSet<>();
			for (int i = 0; i < this.nodes.size(); i++) {
				NodeAddress address = NodeAddress.parse(i, this.nodes.get(i));
				if (!seen.add(address.identity())) {
					throw new InvalidOptionException("Node " + i + " '" + address + "' is listed twice",
							"each node must be a distinct master, or one server would count twice toward the quorum");
				}
				addresses.add(address);
			}
			positive("nodeTimeout", this.nodeTimeout);
			positive("connectTimeout", this.connectTimeout);
			positive("defaultTtl", this.defaultTtl);
			positive("maxTtl", this.maxTtl);
			positive("maxHold", this.maxHold);
			positive("fencingRetention", this.fencingRetention);
			if (this.fencingRetention.compareTo(MIN_FENCING_RETENTION) < 0) {
				throw new InvalidOptionException(
						"fencingRetention " + this.fencingRetention + " is under " + MIN_FENCING_RETENTION.toSeconds()
								+ "s: a counter that expires so soon could start again at the token it had",
						"keep counters far longer than the clock skew between nodes; the default is 1 day");
			}
			notNegative("retryDelay", this.retryDelay);
			notNegative("retryJitter", this.retryJitter);
			notNegative("defaultWaitTime", this.defaultWaitTime);
			if (!(this.driftFactor >= 0 && this.driftFactor < 0.5)) {
				throw new InvalidOptionException(
						"driftFactor must be at least 0 and below 0.5, was " + this.driftFactor,
						"set it from 0 to below 0.5; 0.01 suits clocks kept by NTP");
			}
			if (this.defaultTtl.compareTo(this.nodeTimeout.multipliedBy(10)) < 0) {
				throw new InvalidOptionException(
						"nodeTimeout " + this.nodeTimeout.toMillis() + "ms is not well below defaultTtl "
								+ this.defaultTtl.toMillis() + "ms",
						"make the node timeout at most a tenth of the TTL, such as 50ms for a 10s TTL");
			}
			if (this.defaultTtl.compareTo(this.maxTtl) > 0) {
				throw new InvalidOptionException("defaultTtl " + this.defaultTtl + " is above maxTtl " + this.maxTtl,
						"lower defaultTtl or raise maxTtl");
			}
			if (this.maxTtl.compareTo(this.maxHold) > 0) {
				throw new InvalidOptionException("maxTtl " + this.maxTtl + " is above maxHold " + this.maxHold,
						"lower maxTtl or raise maxHold");
			}
			if (this.keyPrefix == null) {
				throw new InvalidOptionException("keyPrefix is null", "use \"\" for no prefix");
			}
			Objects.requireNonNull(this.clock, "clock");
			return new RedlockRegistry(this, addresses);
		}

		private static void positive(String name, Duration value) {
			if (value == null || value.isNegative() || value.isZero()) {
				throw new InvalidOptionException(name + " must be positive, was " + value,
						"give a duration such as 30s or 500ms");
			}
		}

		private static void notNegative(String name, Duration value) {
			if (value == null || value.isNegative()) {
				throw new InvalidOptionException(name + " must be zero or positive, was " + value,
						"give a duration such as 0s or 500ms");
			}
		}

	}

}
