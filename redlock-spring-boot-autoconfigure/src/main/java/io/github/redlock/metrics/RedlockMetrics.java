package io.github.redlock.metrics;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.engine.RegistryListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Records what happens to the locks in Micrometer timers:
 * <ul>
 * <li>{@code redlock.acquire}, tagged {@code result=acquired|not_acquired} and
 * {@code reason=none|held|no_quorum|validity_exhausted|interrupted} (why it was not
 * acquired, {@link LockAcquisitionException.Reason}): how long acquiring took, retries
 * and waits included;</li>
 * <li>{@code redlock.lease}, tagged {@code outcome=released|lost}: how long leases were
 * held, and how they ended.</li>
 * </ul>
 * Keys are not tags: an application may lock on any number of them.
 *
 * @author redlock contributors
 * @see RedlockRegistryMeterBinder
 * @deprecated since 0.1.0 for removal: the {@code redlock.acquisition} and
 * {@code redlock.hold} observations ({@code ObservationLockObserver}) time the same
 * events, with Micrometer's {@code DefaultMeterObservationHandler} turning them into
 * timers of those names; auto-configured only without an {@code ObservationRegistry}, or
 * with {@code redlock.metrics.legacy-timers=true}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public class RedlockMetrics implements RegistryListener {

	private final Timer acquired;

	private final Map<LockAcquisitionException.Reason, Timer> notAcquired = new EnumMap<>(
			LockAcquisitionException.Reason.class);

	private final Timer released;

	private final Timer lost;

	/**
	 * Creates the timers in the given registry.
	 * @param meterRegistry the meter registry
	 */
	public RedlockMetrics(MeterRegistry meterRegistry) {
		this.acquired = acquireTimer(meterRegistry, "acquired", "none");
		for (LockAcquisitionException.Reason reason : LockAcquisitionException.Reason.values()) {
			this.notAcquired.put(reason,
					acquireTimer(meterRegistry, "not_acquired", reason.name().toLowerCase(Locale.ROOT)));
		}
		this.released = leaseTimer(meterRegistry, "released");
		this.lost = leaseTimer(meterRegistry, "lost");
	}

	private static Timer acquireTimer(MeterRegistry meterRegistry, String result, String reason) {
		return Timer.builder("redlock.acquire")
			.description("Time taken to acquire a distributed lock, retries included")
			.tag("result", result)
			.tag("reason", reason)
			.register(meterRegistry);
	}

	private static Timer leaseTimer(MeterRegistry meterRegistry, String outcome) {
		return Timer.builder("redlock.lease")
			.description("Time distributed locks were held until released or lost")
			.tag("outcome", outcome)
			.register(meterRegistry);
	}

	@Override
	public void acquired(String key, Duration took) {
		this.acquired.record(took);
	}

	@Override
	@SuppressWarnings("NullAway") // the constructor made a timer for every reason
	public void notAcquired(String key, Duration took, LockAcquisitionException cause) {
		this.notAcquired.get(cause.getReason()).record(took);
	}

	@Override
	public void released(String key, Duration held) {
		this.released.record(held);
	}

	@Override
	public void lost(String key, Duration held) {
		this.lost.record(held);
	}

}
