package io.github.redlock.shedlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redlock.Durations;
import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockKeys;
import io.github.redlock.LockRegistry;
import io.github.redlock.RedlockException;
import io.github.redlock.engine.RedlockRegistry;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A ShedLock {@link ExtensibleLockProvider} over a redlock {@link LockRegistry}: a
 * {@code @SchedulerLock} job runs only where a majority of the nodes granted its lock.
 *
 * <pre class="code">
 * &#064;Bean
 * LockProvider lockProvider(LockRegistry locks) {
 *     return new RedlockLockProvider(locks);
 * }
 * </pre>
 *
 * The ShedLock lock name is the registry key, unchanged: {@code @SchedulerLock(name =
 * "report")} and {@code locks.acquire("report", ...)} contend for one lock (the registry
 * adds its key prefix to both). ShedLock's semantics hold:
 * <ul>
 * <li>{@link #lock} makes one attempt and returns empty when another holder has the lock,
 * from this thread too: unlike the registry's blocking calls, it is not reentrant. When
 * too few nodes answer to tell, it throws {@link LockAcquisitionException}, which says
 * which nodes failed and why.</li>
 * <li>The lock is held until {@link SimpleLock#unlock()} or {@code lockAtMostFor},
 * whichever comes first, and then expires on the nodes by itself. A short
 * {@code lockAtMostFor} is the lock's TTL as it is, 50 ms a 50 ms lock on the nodes; only
 * one no lock can be valid for (no longer than the clock drift allowed for it, 2 ms with
 * the default settings) is refused with an {@link IllegalArgumentException} that says so.
 * A {@code lockAtMostFor} above the registry's maximum hold time
 * ({@code redlock.max-hold}) is cut to it, with one warning per lock name; with Spring
 * Boot, {@code @SchedulerLock} methods and {@code defaultLockAtMostFor} that ask for more
 * fail the start-up instead, saying which. A {@code lockAtMostFor} up to the registry's
 * maximum TTL is the lock's TTL; a longer one (the common {@code 10m}) is reached by the
 * registry's watchdog, which extends the lock a maximum TTL at a time and sets the last
 * extension to end at {@code lockAtMostFor}, never beyond. A process that dies meanwhile
 * leaves the lock for at most one maximum TTL, rather than until {@code lockAtMostFor}.
 * If the watchdog cannot keep a quorum, the lock is lost: the registry logs a warning
 * naming it and another instance may run the job.</li>
 * <li>{@code unlock()} honours {@code lockAtLeastFor}: the lock stays on the nodes until
 * {@code lockAtLeastFor} after the lock was taken (kept by the watchdog past the maximum
 * TTL) and expires there by itself; once that has passed, it is deleted at once.</li>
 * <li>{@code extend(lockAtMostFor, lockAtLeastFor)} returns a new lock that ends
 * {@code lockAtMostFor} from now, and invalidates the old one: its {@code unlock()} and
 * {@code extend()} throw {@link IllegalStateException}. A lock that expired or was lost
 * cannot be extended: the result is empty.</li>
 * </ul>
 *
 * @author redlock contributors
 */
public final class RedlockLockProvider implements ExtensibleLockProvider {

	private static final Log logger = LogFactory.getLog(RedlockLockProvider.class);

	private final LockRegistry registry;

	private final @Nullable Duration maxTtl;

	/** Longest a lock may be held, or {@code null} if the registry does not say. */
	private final @Nullable Duration maxHold;

	/** Room left below the maximum hold for the acquisition's own round trip. */
	private final @Nullable Duration holdMargin;

	/** Lock names already warned about, so that each is named once. */
	private final Set<String> cutDown = ConcurrentHashMap.newKeySet();

	/**
	 * Creates a provider over a registry.
	 * @param registry the registry whose nodes hold the locks
	 */
	public RedlockLockProvider(LockRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		if (registry instanceof RedlockRegistry redlock) {
			this.maxTtl = redlock.settings().maxTtl();
			this.maxHold = redlock.settings().maxHold();
			this.holdMargin = redlock.settings().nodeTimeout();
		}
		else {
			this.maxTtl = null;
			this.maxHold = null;
			this.holdMargin = null;
		}
	}

	/**
	 * Makes one attempt to take the lock named in the configuration until its
	 * {@code lockAtMostFor}.
	 * @param lockConfiguration the lock's name and durations
	 * @return the lock, or empty if another holder has it
	 * @throws LockAcquisitionException if too few nodes answered to tell
	 * @throws IllegalArgumentException if the name is not a key the registry accepts
	 * (such as one longer than {@link RedlockRegistry#MAX_KEY_LENGTH} characters), or if
	 * {@code lockAtMostFor} is not a TTL it accepts: one no lock can be valid for, or,
	 * for a {@link LockRegistry} that is not a {@link RedlockRegistry} (whose limits the
	 * provider cannot adapt to), any other it refuses
	 */
	@Override
	public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
		String name = lockConfiguration.getName();
		long start = System.nanoTime();
		Duration atMost = lockAtMost(name, lockConfiguration, untilLockAtMost(lockConfiguration));
		Duration ttl = (this.maxTtl != null && atMost.compareTo(this.maxTtl) > 0) ? this.maxTtl : atMost;
		Lease lease = acquire(name, ttl, lockConfiguration);
		if (lease == null) {
			return Optional.empty();
		}
		if (ttl.compareTo(atMost) < 0) {
			// the rest of lockAtMostFor, counted from before the acquisition
			Duration rest = atMost.minusNanos(System.nanoTime() - start);
			try {
				if (rest.toMillis() >= 1 && !lease.holdFor(rest)) {
					// a quorum granted the lock, but not the first extension towards
					// lockAtMostFor: it could not be kept that long
					lease.release();
					throw new RedlockException("ShedLock lock '" + LockKeys.printable(name)
							+ "' was acquired but could not be extended on a quorum of nodes towards its lockAtMostFor ("
							+ Durations.format(lockConfiguration.getLockAtMostFor())
							+ "), so it was released; check the health of the redlock nodes");
				}
			}
			catch (IllegalArgumentException ex) {
				lease.release();
				throw new IllegalArgumentException("lockAtMostFor "
						+ Durations.format(lockConfiguration.getLockAtMostFor()) + " of ShedLock lock '"
						+ LockKeys.printable(name) + "' cannot be honoured: " + ex.getMessage(), ex);
			}
		}
		return Optional.of(new RedlockLock(lockConfiguration, lease));
	}

	/**
	 * Returns how long to hold the lock: the rest of {@code lockAtMostFor}, however
	 * short, cut to the registry's maximum hold time with one warning per lock name.
	 */
	private Duration lockAtMost(String name, LockConfiguration configuration, Duration atMost) {
		if (this.maxHold != null && atMost.compareTo(this.maxHold.minus(this.holdMargin)) > 0) {
			Duration cut = this.maxHold.minus(this.holdMargin);
			if (this.cutDown.add(name) && logger.isWarnEnabled()) {
				logger.warn("ShedLock lock '" + LockKeys.printable(name) + "' asks for lockAtMostFor "
						+ Durations.format(configuration.getLockAtMostFor())
						+ ", above the longest a redlock lock may be held (redlock.max-hold "
						+ Durations.format(this.maxHold) + "): it is held for at most " + Durations.format(cut)
						+ " instead, and another instance may run the task after that. Raise redlock.max-hold"
						+ " or lower lockAtMostFor. This is said once per lock name");
			}
			return cut;
		}
		return atMost;
	}

	/**
	 * Makes one attempt, on the registry's non-reentrant path: a second {@code lock()} of
	 * a held name gets nothing, from the holding thread too.
	 * @return the lease, or {@code null} if another holder has the lock
	 */
	private @Nullable Lease acquire(String name, Duration ttl, LockConfiguration lockConfiguration) {
		CompletableFuture<Lease> pending;
		try {
			pending = this.registry.acquireAsync(name, ttl, Duration.ZERO, false);
		}
		catch (IllegalArgumentException ex) {
			// the registry refuses a name it cannot take as a key as it refuses a TTL:
			// its
			// reason says which, and the advice names both
			throw new IllegalArgumentException("ShedLock lock '" + LockKeys.printable(name) + "' with lockAtMostFor "
					+ Durations.format(lockConfiguration.getLockAtMostFor()) + " was refused by the LockRegistry: "
					+ ex.getMessage() + ". The lock name is the registry's key, unchanged, and lockAtMostFor its TTL:"
					+ " shorten or fix the name, or raise lockAtMostFor (in @SchedulerLock or"
					+ " @EnableSchedulerLock(defaultLockAtMostFor)) or adjust the redlock settings", ex);
		}
		Duration bound = this.registry.decisionBound(Duration.ZERO);
		try {
			return pending.get(bound.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			pending.cancel(false);
			Thread.currentThread().interrupt();
			throw new LockAcquisitionException("Interrupted while ShedLock lock '" + LockKeys.printable(name)
					+ "' was being acquired; no lock is held", name, ex);
		}
		catch (TimeoutException ex) {
			pending.cancel(false);
			throw new LockAcquisitionException(LockAcquisitionException.Reason.NO_QUORUM, name,
					"ShedLock lock '" + LockKeys.printable(name) + "' was not acquired: the registry did not decide"
							+ " its attempt within " + Durations.format(bound)
							+ ", so it was abandoned (a lock granted to it later is released at once)");
		}
		catch (ExecutionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			if (cause instanceof LockAcquisitionException failed
					&& failed.getReason() == LockAcquisitionException.Reason.HELD) {
				return null;
			}
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new RedlockException("Could not acquire ShedLock lock '" + LockKeys.printable(name) + "'", cause);
		}
	}

	/**
	 * Returns how long is left until the configuration's {@code lockAtMostFor} ends, on
	 * ShedLock's clock; at least one millisecond.
	 */
	private static Duration untilLockAtMost(LockConfiguration configuration) {
		Duration left = Duration.between(ClockProvider.now(), configuration.getLockAtMostUntil());
		return (left.toMillis() >= 1) ? left : Duration.ofMillis(1);
	}

	@Override
	public String toString() {
		return "RedlockLockProvider[" + this.registry + "]";
	}

	/**
	 * One ShedLock lock: a lease and the configuration it was taken or extended with.
	 */
	private static final class RedlockLock extends AbstractSimpleLock {

		private final Lease lease;

		RedlockLock(LockConfiguration lockConfiguration, Lease lease) {
			super(lockConfiguration);
			this.lease = lease;
		}

		@Override
		protected void doUnlock() {
			Duration atLeast = Duration.between(ClockProvider.now(), this.lockConfiguration.getLockAtLeastUntil());
			if (atLeast.toMillis() >= 1) {
				this.lease.releaseAfter(atLeast);
			}
			else {
				this.lease.release();
			}
		}

		@Override
		protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
			if (!this.lease.isHeld()) {
				return Optional.empty();
			}
			Duration atMost = Duration.between(ClockProvider.now(), newConfiguration.getLockAtMostUntil());
			if (atMost.toMillis() < 1 || !this.lease.holdFor(atMost)) {
				return Optional.empty();
			}
			return Optional.of(new RedlockLock(newConfiguration, this.lease));
		}

		@Override
		public String toString() {
			return "RedlockLock[" + this.lockConfiguration.getName() + ", " + this.lease + "]";
		}

	}

}
