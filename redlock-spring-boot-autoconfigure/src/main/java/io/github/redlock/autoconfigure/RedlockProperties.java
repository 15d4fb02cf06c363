package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redlock.aop.LostLockPolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

/**
 * Configuration properties for distributed locks over a quorum of Redis, Valkey or KeyDB
 * masters.
 * <p>
 * One class past the size target because it is the {@code redlock.*} namespace as Boot
 * binds it: each field is a property whose Javadoc becomes its description in the
 * configuration metadata, so the length is those descriptions. It checks nothing: the
 * registry's builder and {@code RedlockSettings} own the rules the values must meet.
 *
 * @author redlock contributors
 */
@ConfigurationProperties("redlock")
public class RedlockProperties {

	/**
	 * Order of the {@code @DistributedLock} advisor unless {@code redlock.order} says
	 * otherwise: just before the transaction advisor, so that the lock covers the whole
	 * transaction.
	 */
	public static final int DEFAULT_ORDER = 2147483646;

	/**
	 * Whether to configure the distributed lock registry.
	 */
	private boolean enabled = true;

	/**
	 * URIs of the independent masters that make the quorum, such as redis://10.0.0.1:6379
	 * or rediss://user:password@10.0.0.2:6380/0; use 3 or 5.
	 */
	private List<String> nodes = new ArrayList<>();

	/**
	 * Members of the quorum that are Redis or Valkey Clusters, one entry per cluster with
	 * the URIs of some of its servers (seeds) as a list or one comma-separated string,
	 * such as redis://10.0.1.1:6379,redis://10.0.1.2:6379; use 3 or 5, instead of
	 * redlock.nodes.
	 */
	private List<List<String>> clusters = new ArrayList<>();

	/**
	 * Login user name for every node whose URI has no credentials; needs the password.
	 */
	private @Nullable String username;

	/**
	 * Login password for every node whose URI has no credentials.
	 */
	private @Nullable String password;

	/**
	 * TLS for every node.
	 */
	private final Ssl ssl = new Ssl();

	/**
	 * Metrics settings.
	 */
	private final Metrics metrics = new Metrics();

	/**
	 * Prefix of every key written on the nodes; braces are refused, since each lock key
	 * is made the hash tag of its keys.
	 */
	private String keyPrefix = "redlock:";

	/**
	 * Time to live of a lock when none is given.
	 */
	private Duration defaultTtl = Duration.ofSeconds(30);

	/**
	 * How long to keep trying to acquire a lock when no wait time is given.
	 */
	private Duration defaultWaitTime = Duration.ofSeconds(10);

	/**
	 * How long one node may take to answer before it counts as failed; at most a tenth of
	 * the default TTL.
	 */
	private Duration nodeTimeout = Duration.ofMillis(100);

	/**
	 * How long connecting to a node may take.
	 */
	private Duration connectTimeout = Duration.ofSeconds(2);

	/**
	 * Share of the TTL allowed for clock drift between processes, to which 2ms are added.
	 */
	private double driftFactor = 0.01;

	/**
	 * Least delay between two attempts to acquire a lock.
	 */
	private Duration retryDelay = Duration.ofMillis(50);

	/**
	 * Most random delay added to the retry delay, so that contenders fall out of step.
	 */
	private Duration retryJitter = Duration.ofMillis(50);

	/**
	 * Largest TTL accepted, and how long a restarted node counts toward no quorum.
	 */
	private Duration maxTtl = Duration.ofSeconds(60);

	/**
	 * Longest a lease may be kept extended by the watchdog, counted from its acquisition.
	 */
	private Duration maxHold = Duration.ofHours(1);

	/**
	 * How long a key's fencing counter is kept on the nodes after its last use; far
	 * longer than the clock skew between nodes.
	 */
	private Duration fencingRetention = Duration.ofDays(1);

	/**
	 * Node timeouts in a row, with nothing read from the node meanwhile, after which a
	 * node is probed with a TIME; if that goes unanswered (an error reply is an answer)
	 * within the probe interval, the node counts toward no quorum and gets no lock
	 * commands until it answers (a black hole or a frozen server).
	 */
	private int silentNodeTimeouts = 3;

	/**
	 * How often a silent node is probed with a TIME, and how long each probe waits for
	 * its answer (at least the node timeout); at most 1 minute.
	 */
	private Duration silentNodeProbeInterval = Duration.ofSeconds(1);

	/**
	 * Whether a node that restarted or lost its data counts toward no quorum until the
	 * maximum TTL has passed; turn it off only for nodes run with appendfsync always.
	 */
	private boolean restartGuard = true;

	/**
	 * Whether a node whose memory policy may evict keys with a TTL (a maxmemory with any
	 * maxmemory-policy but noeviction) still counts toward quorums; an evicted lock key
	 * breaks exclusion.
	 */
	private boolean acceptEviction;

	/**
	 * Whether waiters are woken when another process releases: the release publishes on a
	 * channel named as the lock key on the nodes (for a semaphore, lock:permits: then its
	 * key in braces), and the registry subscribes to it (on a second connection per node)
	 * only while the first waiter of its line for the key sleeps between attempts. An
	 * exclusive lock's release wakes the first waiter of the one process queued first for
	 * the key on the nodes (a process is queued when a holder refused its waiter), and
	 * publishes nothing when no process queued while it held the key or when its own
	 * process's next waiter takes the key; a write lock's release, the last reader's and
	 * a permit's wake the first waiter of every subscribed process. Off, on a node that
	 * forbids publish/subscribe, and for a lease that expired, waiters poll every retry
	 * delay plus jitter, never later than the holder's remaining TTL.
	 */
	private boolean releaseHints = true;

	/**
	 * What a @DistributedLock method's caller gets when the lock was lost while the
	 * method ran: an exception, or a warning in the log and the method's result.
	 */
	private LostLockPolicy lostLockPolicy = LostLockPolicy.THROW;

	/**
	 * Order of the advisor that applies @DistributedLock; by default just before the
	 * transaction advisor, so that the lock covers the commit.
	 */
	private int order = DEFAULT_ORDER;

	/**
	 * Most distinct keys one @DistributedLock call may lock when its key evaluates to a
	 * collection or an array; a call over it fails before locking anything.
	 */
	private int maxKeys = 100;

	/**
	 * What start-up does with a redlock property that no redlock module binds (a typo
	 * such as redlock.restart-gaurd): warn, naming the property it probably meant, fail,
	 * or ignore it. Properties from environment variables and JVM system properties are
	 * not checked.
	 */
	private UnknownPropertyPolicy unknownProperties = UnknownPropertyPolicy.WARN;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public List<String> getNodes() {
		return this.nodes;
	}

	public void setNodes(List<String> nodes) {
		this.nodes = nodes;
	}

	public List<List<String>> getClusters() {
		return this.clusters;
	}

	public void setClusters(List<List<String>> clusters) {
		this.clusters = clusters;
	}

	public @Nullable String getUsername() {
		return this.username;
	}

	public void setUsername(@Nullable String username) {
		this.username = username;
	}

	public @Nullable String getPassword() {
		return this.password;
	}

	public void setPassword(@Nullable String password) {
		this.password = password;
	}

	public int getMaxKeys() {
		return this.maxKeys;
	}

	public void setMaxKeys(int maxKeys) {
		this.maxKeys = maxKeys;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Ssl getSsl() {
		return this.ssl;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getDefaultTtl() {
		return this.defaultTtl;
	}

	public void setDefaultTtl(Duration defaultTtl) {
		this.defaultTtl = defaultTtl;
	}

	public Duration getDefaultWaitTime() {
		return this.defaultWaitTime;
	}

	public void setDefaultWaitTime(Duration defaultWaitTime) {
		this.defaultWaitTime = defaultWaitTime;
	}

	public Duration getNodeTimeout() {
		return this.nodeTimeout;
	}

	public void setNodeTimeout(Duration nodeTimeout) {
		this.nodeTimeout = nodeTimeout;
	}

	public Duration getConnectTimeout() {
		return this.connectTimeout;
	}

	public void setConnectTimeout(Duration connectTimeout) {
		this.connectTimeout = connectTimeout;
	}

	public double getDriftFactor() {
		return this.driftFactor;
	}

	public void setDriftFactor(double driftFactor) {
		this.driftFactor = driftFactor;
	}

	public Duration getRetryDelay() {
		return this.retryDelay;
	}

	public void setRetryDelay(Duration retryDelay) {
		this.retryDelay = retryDelay;
	}

	public int getSilentNodeTimeouts() {
		return this.silentNodeTimeouts;
	}

	public void setSilentNodeTimeouts(int silentNodeTimeouts) {
		this.silentNodeTimeouts = silentNodeTimeouts;
	}

	public Duration getSilentNodeProbeInterval() {
		return this.silentNodeProbeInterval;
	}

	public void setSilentNodeProbeInterval(Duration silentNodeProbeInterval) {
		this.silentNodeProbeInterval = silentNodeProbeInterval;
	}

	public Duration getRetryJitter() {
		return this.retryJitter;
	}

	public void setRetryJitter(Duration retryJitter) {
		this.retryJitter = retryJitter;
	}

	public Duration getMaxTtl() {
		return this.maxTtl;
	}

	public void setMaxTtl(Duration maxTtl) {
		this.maxTtl = maxTtl;
	}

	public Duration getMaxHold() {
		return this.maxHold;
	}

	public void setMaxHold(Duration maxHold) {
		this.maxHold = maxHold;
	}

	public Duration getFencingRetention() {
		return this.fencingRetention;
	}

	public void setFencingRetention(Duration fencingRetention) {
		this.fencingRetention = fencingRetention;
	}

	public boolean isRestartGuard() {
		return this.restartGuard;
	}

	public void setRestartGuard(boolean restartGuard) {
		this.restartGuard = restartGuard;
	}

	public boolean isAcceptEviction() {
		return this.acceptEviction;
	}

	public void setAcceptEviction(boolean acceptEviction) {
		this.acceptEviction = acceptEviction;
	}

	public boolean isReleaseHints() {
		return this.releaseHints;
	}

	public void setReleaseHints(boolean releaseHints) {
		this.releaseHints = releaseHints;
	}

	public LostLockPolicy getLostLockPolicy() {
		return this.lostLockPolicy;
	}

	public void setLostLockPolicy(LostLockPolicy lostLockPolicy) {
		this.lostLockPolicy = lostLockPolicy;
	}

	public UnknownPropertyPolicy getUnknownProperties() {
		return this.unknownProperties;
	}

	public void setUnknownProperties(UnknownPropertyPolicy unknownProperties) {
		this.unknownProperties = unknownProperties;
	}

	public int getOrder() {
		return this.order;
	}

	public void setOrder(int order) {
		this.order = order;
	}

	/**
	 * Metrics settings.
	 */
	public static class Metrics {

		/**
		 * Whether to keep recording the redlock.acquire and redlock.lease timers beside
		 * the redlock.acquisition and redlock.hold observations, while dashboards move to
		 * the latter.
		 */
		private boolean legacyTimers;

		@Deprecated(since = "0.1.0", forRemoval = true)
		@DeprecatedConfigurationProperty(since = "0.1.0",
				reason = "The redlock.acquisition and redlock.hold observations time the same events")
		public boolean isLegacyTimers() {
			return this.legacyTimers;
		}

		@Deprecated(since = "0.1.0", forRemoval = true)
		public void setLegacyTimers(boolean legacyTimers) {
			this.legacyTimers = legacyTimers;
		}

	}

	/**
	 * TLS settings for every node.
	 */
	public static class Ssl {

		/**
		 * Whether to connect to every node over TLS; implied by a bundle. Without a
		 * bundle, the JVM's default trust store applies.
		 */
		private @Nullable Boolean enabled;

		/**
		 * Name of the SSL bundle (spring.ssl.bundle.*) with the trust material, the
		 * client key and certificate for mutual TLS, and the protocols and ciphers.
		 */
		private @Nullable String bundle;

		public boolean isEnabled() {
			return (this.enabled != null) ? this.enabled : this.bundle != null;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable String getBundle() {
			return this.bundle;
		}

		public void setBundle(@Nullable String bundle) {
			this.bundle = (bundle != null && !bundle.isBlank()) ? bundle : null;
		}

	}

}
