package io.github.redlock.aop;

import java.time.Duration;
import java.util.Objects;

/**
 * What {@code @DistributedLock} methods take from the application's configuration: the
 * TTL and wait time of an annotation that gives none, the bounds its attributes are
 * checked against when a bean is proxied, and the {@link LostLockPolicy}. The
 * auto-configuration makes one from the {@code redlock.*} properties; without such a
 * bean, an interceptor uses {@link #defaults()} and checks no attribute against a bound.
 * <p>
 * Immutable: each {@code with} method returns a copy.
 *
 * @author redlock contributors
 */
public final class DistributedLockSettings {

	private static final DistributedLockSettings DEFAULTS = new DistributedLockSettings(Duration.ofSeconds(30),
			Duration.ofSeconds(10), Duration.ofMillis(100), Duration.ofSeconds(60), Duration.ofHours(1),
			LostLockPolicy.THROW, Duration.ofMillis(3));

	private final Duration defaultTtl;

	private final Duration defaultWaitTime;

	private final Duration nodeTimeout;

	private final Duration maxTtl;

	private final Duration maxHold;

	private final LostLockPolicy lostLockPolicy;

	private final Duration leastTtl;

	private DistributedLockSettings(Duration defaultTtl, Duration defaultWaitTime, Duration nodeTimeout,
			Duration maxTtl, Duration maxHold, LostLockPolicy lostLockPolicy, Duration leastTtl) {
		this.leastTtl = Objects.requireNonNull(leastTtl, "leastTtl must not be null");
		this.defaultTtl = Objects.requireNonNull(defaultTtl, "defaultTtl must not be null");
		this.defaultWaitTime = Objects.requireNonNull(defaultWaitTime, "defaultWaitTime must not be null");
		this.nodeTimeout = Objects.requireNonNull(nodeTimeout, "nodeTimeout must not be null");
		this.maxTtl = Objects.requireNonNull(maxTtl, "maxTtl must not be null");
		this.maxHold = Objects.requireNonNull(maxHold, "maxHold must not be null");
		this.lostLockPolicy = Objects.requireNonNull(lostLockPolicy, "lostLockPolicy must not be null");
	}

	/**
	 * Returns the settings of the {@code redlock.*} properties' defaults.
	 * @return the default settings
	 */
	public static DistributedLockSettings defaults() {
		return DEFAULTS;
	}

	/**
	 * Returns the TTL of an annotation that gives none ({@code redlock.default-ttl}).
	 * @return the default TTL
	 */
	public Duration getDefaultTtl() {
		return this.defaultTtl;
	}

	/**
	 * Returns these settings with another default TTL.
	 * @param defaultTtl the TTL of an annotation that gives none
	 * @return a copy
	 */
	public DistributedLockSettings withDefaultTtl(Duration defaultTtl) {
		return new DistributedLockSettings(defaultTtl, this.defaultWaitTime, this.nodeTimeout, this.maxTtl,
				this.maxHold, this.lostLockPolicy, this.leastTtl);
	}

	/**
	 * Returns the wait time of an annotation that gives none
	 * ({@code redlock.default-wait-time}).
	 * @return the default wait time
	 */
	public Duration getDefaultWaitTime() {
		return this.defaultWaitTime;
	}

	/**
	 * Returns these settings with another default wait time.
	 * @param defaultWaitTime the wait time of an annotation that gives none
	 * @return a copy
	 */
	public DistributedLockSettings withDefaultWaitTime(Duration defaultWaitTime) {
		return new DistributedLockSettings(this.defaultTtl, defaultWaitTime, this.nodeTimeout, this.maxTtl,
				this.maxHold, this.lostLockPolicy, this.leastTtl);
	}

	/**
	 * Returns the node timeout ({@code redlock.node-timeout}). It no longer bounds an
	 * annotation's TTL: a lock's calls wait for each node a share of a shorter TTL.
	 * @return the node timeout
	 */
	public Duration getNodeTimeout() {
		return this.nodeTimeout;
	}

	/**
	 * Returns these settings with another node timeout.
	 * @param nodeTimeout the node timeout
	 * @return a copy
	 */
	public DistributedLockSettings withNodeTimeout(Duration nodeTimeout) {
		return new DistributedLockSettings(this.defaultTtl, this.defaultWaitTime, nodeTimeout, this.maxTtl,
				this.maxHold, this.lostLockPolicy, this.leastTtl);
	}

	/**
	 * Returns the shortest TTL an annotation may give: the shortest any lock can be valid
	 * for, longer than the clock drift allowed for it
	 * ({@link io.github.redlock.engine.RedlockRegistry#leastTtl(double)}).
	 * @return the shortest TTL
	 */
	public Duration getLeastTtl() {
		return this.leastTtl;
	}

	/**
	 * Returns these settings with another shortest TTL.
	 * @param leastTtl the shortest TTL an annotation may give
	 * @return a copy
	 */
	public DistributedLockSettings withLeastTtl(Duration leastTtl) {
		return new DistributedLockSettings(this.defaultTtl, this.defaultWaitTime, this.nodeTimeout, this.maxTtl,
				this.maxHold, this.lostLockPolicy, leastTtl);
	}

	/**
	 * Returns the largest TTL an annotation may give ({@code redlock.max-ttl}).
	 * @return the maximum TTL
	 */
	public Duration getMaxTtl() {
		return this.maxTtl;
	}

	/**
	 * Returns these settings with another maximum TTL.
	 * @param maxTtl the largest TTL an annotation may give
	 * @return a copy
	 */
	public DistributedLockSettings withMaxTtl(Duration maxTtl) {
		return new DistributedLockSettings(this.defaultTtl, this.defaultWaitTime, this.nodeTimeout, maxTtl,
				this.maxHold, this.lostLockPolicy, this.leastTtl);
	}

	/**
	 * Returns the longest an annotation's {@code holdAtLeast} may be
	 * ({@code redlock.max-hold}).
	 * @return the maximum hold
	 */
	public Duration getMaxHold() {
		return this.maxHold;
	}

	/**
	 * Returns these settings with another maximum hold.
	 * @param maxHold the longest a lease may be held
	 * @return a copy
	 */
	public DistributedLockSettings withMaxHold(Duration maxHold) {
		return new DistributedLockSettings(this.defaultTtl, this.defaultWaitTime, this.nodeTimeout, this.maxTtl,
				maxHold, this.lostLockPolicy, this.leastTtl);
	}

	/**
	 * Returns what happens when a method returns and its lock was lost while it ran
	 * ({@code redlock.lost-lock-policy}).
	 * @return the lost-lock policy
	 */
	public LostLockPolicy getLostLockPolicy() {
		return this.lostLockPolicy;
	}

	/**
	 * Returns these settings with another lost-lock policy.
	 * @param lostLockPolicy what happens when a lock was lost while its method ran
	 * @return a copy
	 */
	public DistributedLockSettings withLostLockPolicy(LostLockPolicy lostLockPolicy) {
		return new DistributedLockSettings(this.defaultTtl, this.defaultWaitTime, this.nodeTimeout, this.maxTtl,
				this.maxHold, lostLockPolicy, this.leastTtl);
	}

	@Override
	public boolean equals(Object other) {
		return other instanceof DistributedLockSettings that && this.defaultTtl.equals(that.defaultTtl)
				&& this.defaultWaitTime.equals(that.defaultWaitTime) && this.nodeTimeout.equals(that.nodeTimeout)
				&& this.maxTtl.equals(that.maxTtl) && this.maxHold.equals(that.maxHold)
				&& this.lostLockPolicy == that.lostLockPolicy && this.leastTtl.equals(that.leastTtl);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.defaultTtl, this.defaultWaitTime, this.nodeTimeout, this.maxTtl, this.maxHold,
				this.lostLockPolicy, this.leastTtl);
	}

	@Override
	public String toString() {
		return "DistributedLockSettings[defaultTtl=" + this.defaultTtl + ", defaultWaitTime=" + this.defaultWaitTime
				+ ", nodeTimeout=" + this.nodeTimeout + ", maxTtl=" + this.maxTtl + ", maxHold=" + this.maxHold
				+ ", lostLockPolicy=" + this.lostLockPolicy + ", leastTtl=" + this.leastTtl + "]";
	}

}
