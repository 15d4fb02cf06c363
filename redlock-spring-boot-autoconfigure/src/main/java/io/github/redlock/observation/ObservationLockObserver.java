package io.github.redlock.observation;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redlock.Lease;
import io.github.redlock.LockLostException;
import io.github.redlock.engine.LockObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.ObservationView;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockObserver} that makes Micrometer Observations: a
 * {@link RedlockObservationDocumentation#LOCK_ACQUISITION lock acquisition} per
 * acquisition, started on the caller's thread as a child of its current observation (in
 * scope while a blocking caller waits), and a
 * {@link RedlockObservationDocumentation#LOCK_HOLD lock hold} per new lease, under the
 * same parent, until it is released or lost.
 *
 * <pre class="code">
 * RedlockRegistry.builder().nodes(...).observer(new ObservationLockObserver(observationRegistry)).build();
 * </pre>
 *
 * @author redlock contributors
 */
public final class ObservationLockObserver implements LockObserver {

	private static final Acquiring NOOP = new Acquiring() {

		@Override
		public Scope openScope() {
			return () -> {
			};
		}

		@Override
		public void acquired(Lease lease) {
		}

		@Override
		public void failed(Throwable failure) {
		}

		@Override
		public @Nullable Holding hold(Lease lease) {
			return null;
		}

	};

	private final ObservationRegistry registry;

	private final @Nullable LockAcquisitionObservationConvention acquisitionConvention;

	private final @Nullable LockHoldObservationConvention holdConvention;

	/**
	 * Creates an observer with the default conventions.
	 * @param registry the observation registry
	 */
	public ObservationLockObserver(ObservationRegistry registry) {
		this(registry, null, null);
	}

	/**
	 * Creates an observer.
	 * @param registry the observation registry
	 * @param acquisitionConvention the convention for acquisitions, or {@code null} for
	 * the default
	 * @param holdConvention the convention for holds, or {@code null} for the default
	 */
	public ObservationLockObserver(ObservationRegistry registry,
			@Nullable LockAcquisitionObservationConvention acquisitionConvention,
			@Nullable LockHoldObservationConvention holdConvention) {
		this.registry = registry;
		this.acquisitionConvention = acquisitionConvention;
		this.holdConvention = holdConvention;
	}

	@Override
	public Acquiring acquisitionStarted(String key, Duration ttl, Duration waitTime, Mode mode, boolean reentrant) {
		return acquisitionStarted(key, ttl, waitTime, mode, reentrant, Kind.EXCLUSIVE);
	}

	@Override
	public Acquiring acquisitionStarted(String key, Duration ttl, Duration waitTime, Mode mode, boolean reentrant,
			Kind kind) {
		Observation observation = RedlockObservationDocumentation.LOCK_ACQUISITION.observation(
				this.acquisitionConvention, DefaultLockAcquisitionObservationConvention.INSTANCE,
				() -> new LockAcquisitionContext(key, ttl, waitTime, mode, reentrant, kind), this.registry);
		if (observation.isNoop()) {
			return NOOP;
		}
		return new ObservedAcquisition(observation.start(), ttl);
	}

	private final class ObservedAcquisition extends AtomicBoolean implements Acquiring {

		private final Observation observation;

		private final Duration ttl;

		ObservedAcquisition(Observation observation, Duration ttl) {
			this.observation = observation;
			this.ttl = ttl;
		}

		private LockAcquisitionContext context() {
			return (LockAcquisitionContext) this.observation.getContext();
		}

		@Override
		public Scope openScope() {
			Observation.Scope scope = this.observation.openScope();
			return scope::close;
		}

		@Override
		public void acquired(Lease lease) {
			if (compareAndSet(false, true)) {
				context().setOutcome(LockAcquisitionContext.Outcome.ACQUIRED);
				context().setFencingToken(lease.fencingToken());
				this.observation.stop();
			}
		}

		@Override
		public void failed(Throwable failure) {
			if (compareAndSet(false, true)) {
				LockAcquisitionContext.Outcome outcome = LockAcquisitionContext.Outcome.of(failure);
				context().setOutcome(outcome);
				if (outcome.isFault()) {
					this.observation.error(failure);
				}
				this.observation.stop();
			}
		}

		@Override
		public @Nullable Holding hold(Lease lease) {
			if (context().getOutcome() != LockAcquisitionContext.Outcome.ACQUIRED) {
				return null;
			}
			LockHoldContext holdContext = new LockHoldContext(lease.key(), lease.fencingToken(), this.ttl,
					context().getKind());
			Observation hold = RedlockObservationDocumentation.LOCK_HOLD.observation(
					ObservationLockObserver.this.holdConvention, DefaultLockHoldObservationConvention.INSTANCE,
					() -> holdContext, ObservationLockObserver.this.registry);
			// a sibling of the acquisition, also when granted on a callback thread
			ObservationView parent = context().getParentObservation();
			if (parent instanceof Observation parentObservation) {
				hold.parentObservation(parentObservation);
			}
			else if (parent == null) {
				hold.parentObservation(null);
			}
			return new ObservedHold(hold.start());
		}

	}

	private static final class ObservedHold implements Holding {

		private final Observation observation;

		ObservedHold(Observation observation) {
			this.observation = observation;
		}

		@Override
		public void released() {
			((LockHoldContext) this.observation.getContext()).setOutcome(LockHoldContext.Outcome.RELEASED);
			this.observation.stop();
		}

		@Override
		public void lost(LockLostException cause) {
			((LockHoldContext) this.observation.getContext()).setOutcome(LockHoldContext.Outcome.LOST);
			this.observation.error(cause);
			this.observation.stop();
		}

	}

}
