package io.github.redlock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;
import io.github.redlock.LockRegistry;
import io.github.redlock.engine.LockObserver;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every kind of lock (exclusive, read, write, permit) through every way of asking for it
 * (blocking, asynchronous, one try), with an observer and without: the same events in the
 * same order, and the same refusal when the registry is stopped or closed, before or
 * during the acquisition. What differs between kinds is what they exclude, never how an
 * acquisition starts, ends or is refused.
 * <p>
 * Failed before the change in 31 of its 128 cases: a read, write or permit acquisition
 * pending when the registry stopped was told "The LockRegistry was closed while
 * acquiring"; with an observer, a blocking or one-try read, write or permit acquisition
 * refused because the registry was stopped was reported as started and failed (the
 * exclusive lock's, and every asynchronous one, not at all), and an asynchronous
 * acquisition refused because the lock was held was reported failed twice.
 * <p>
 * Every registry runs it: the quorum registry against real nodes
 * ({@code KindsContractIntegrationTests}), the in-memory one in redlock-test.
 *
 * @author redlock contributors
 */
public abstract class LockKindsContract {

	private static final Duration TTL = Duration.ofSeconds(5);

	/**
	 * Returns a new registry over the test's locks, closed after the test, that retries
	 * every 50 ms or so.
	 * @param observer the registry's observer, or {@code null} for none
	 * @return the registry, started
	 */
	protected abstract LockRegistry registry(LockObserver observer);

	/**
	 * Stops the registry so that it could be started again.
	 * @param registry a registry of {@link #registry(LockObserver)}
	 */
	protected abstract void stop(LockRegistry registry);

	/**
	 * Closes the registry.
	 * @param registry a registry of {@link #registry(LockObserver)}
	 */
	protected abstract void close(LockRegistry registry);

	enum Kind {

		EXCLUSIVE, READ, WRITE, PERMIT

	}

	enum Mode {

		BLOCKING, ASYNC, TRY

	}

	protected static Stream<Arguments> everyWay() {
		List<Arguments> ways = new ArrayList<>();
		for (Kind kind : Kind.values()) {
			for (Mode mode : Mode.values()) {
				for (boolean observed : new boolean[] { false, true }) {
					ways.add(Arguments.of(kind, mode, observed));
				}
			}
		}
		return ways.stream();
	}

	protected static Stream<Arguments> everyWayThatWaits() {
		return everyWay().filter((way) -> way.get()[1] != Mode.TRY);
	}

	@ParameterizedTest(name = "{0} {1} observed={2}")
	@MethodSource("everyWay")
	public void aGrantedAndReleasedLeaseIsToldTheSameWay(Kind kind, Mode mode, boolean observed) throws Exception {
		Recorder recorder = new Recorder();
		LockRegistry registry = registry(observed ? recorder : null);
		Lease lease = acquire(registry, kind, mode, "granted-" + kind + mode + observed, Duration.ofSeconds(5))
			.orElseThrow();
		assertThat(lease.isHeld()).isTrue();
		assertThat(lease.fencingToken()).isPositive();
		lease.release();
		assertThat(lease.isHeld()).isFalse();
		assertThat(recorder.events()).isEqualTo(observed
				? List.of("started " + kind + " " + observedMode(mode), "acquired", "hold", "released") : List.of());
	}

	@ParameterizedTest(name = "{0} {1} observed={2}")
	@MethodSource("everyWay")
	public void aLockHeldElsewhereIsRefusedTheSameWay(Kind kind, Mode mode, boolean observed) throws Exception {
		String key = "refused-" + kind + mode + observed;
		List<Lease> held = holdEverything(key, kind);
		Recorder recorder = new Recorder();
		LockRegistry registry = registry(observed ? recorder : null);
		Throwable refusal = refusal(() -> acquire(registry, kind, mode, key, Duration.ofMillis(300)));
		if (mode == Mode.TRY) {
			assertThat(refusal).as("one try comes back empty").isNull();
		}
		else {
			assertThat(refusal).isInstanceOf(LockAcquisitionException.class);
			assertThat(((LockAcquisitionException) refusal).getReason())
				.isEqualTo(LockAcquisitionException.Reason.HELD);
		}
		assertThat(recorder.events()).isEqualTo(observed
				? List.of("started " + kind + " " + observedMode(mode), "failed LockAcquisitionException") : List.of());
		held.forEach(Lease::release);
	}

	@ParameterizedTest(name = "{0} {1} observed={2}")
	@MethodSource("everyWay")
	public void aStoppedRegistryRefusesEveryKindTheSameWay(Kind kind, Mode mode, boolean observed) throws Exception {
		Recorder recorder = new Recorder();
		LockRegistry registry = registry(observed ? recorder : null);
		stop(registry);
		Throwable refusal = refusal(() -> acquire(registry, kind, mode, "stopped", Duration.ofSeconds(1)));
		assertThat(refusal).isInstanceOf(IllegalStateException.class)
			.hasMessageStartingWith("This LockRegistry is stopped");
		assertThat(recorder.events()).as("nothing started").isEmpty();
	}

	@ParameterizedTest(name = "{0} {1} observed={2}")
	@MethodSource("everyWay")
	public void aClosedRegistryRefusesEveryKindTheSameWay(Kind kind, Mode mode, boolean observed) throws Exception {
		Recorder recorder = new Recorder();
		LockRegistry registry = registry(observed ? recorder : null);
		close(registry);
		Throwable refusal = refusal(() -> acquire(registry, kind, mode, "closed", Duration.ofSeconds(1)));
		assertThat(refusal).isInstanceOf(IllegalStateException.class)
			.hasMessageStartingWith("This LockRegistry is closed");
		assertThat(recorder.events()).as("nothing started").isEmpty();
	}

	@ParameterizedTest(name = "{0} {1} observed={2}")
	@MethodSource("everyWayThatWaits")
	public void anAcquisitionPendingWhenTheRegistryStopsIsToldItStopped(Kind kind, Mode mode, boolean observed)
			throws Exception {
		endWhilePending(kind, mode, observed, true, "The LockRegistry was stopped while acquiring");
	}

	@ParameterizedTest(name = "{0} {1} observed={2}")
	@MethodSource("everyWayThatWaits")
	public void anAcquisitionPendingWhenTheRegistryClosesIsToldItClosed(Kind kind, Mode mode, boolean observed)
			throws Exception {
		endWhilePending(kind, mode, observed, false, "The LockRegistry was closed while acquiring");
	}

	private void endWhilePending(Kind kind, Mode mode, boolean observed, boolean stop, String told) throws Exception {
		String key = "pending-" + kind + mode + observed + stop;
		List<Lease> held = holdEverything(key, kind);
		Recorder recorder = new Recorder();
		LockRegistry registry = registry(observed ? recorder : null);
		CompletableFuture<Throwable> pending = pending(registry, kind, mode, key);
		if (stop) {
			stop(registry);
		}
		else {
			close(registry);
		}
		Throwable refusal = pending.get(30, TimeUnit.SECONDS);
		assertThat(refusal).isInstanceOf(IllegalStateException.class).hasMessageStartingWith(told);
		assertThat(recorder.events()).isEqualTo(observed
				? List.of("started " + kind + " " + observedMode(mode), "failed IllegalStateException") : List.of());
		held.forEach(Lease::release);
	}

	/**
	 * Starts an acquisition that waits, and returns once it has started: an asynchronous
	 * one has when its future is returned, a blocking one when its thread waits.
	 */
	private static CompletableFuture<Throwable> pending(LockRegistry registry, Kind kind, Mode mode, String key)
			throws Exception {
		Duration wait = Duration.ofSeconds(30);
		if (mode == Mode.ASYNC) {
			CompletableFuture<Lease> future = switch (kind) {
				case EXCLUSIVE -> registry.acquireAsync(key, TTL, wait);
				case READ -> registry.acquireReadAsync(key, TTL, wait);
				case WRITE -> registry.acquireWriteAsync(key, TTL, wait);
				case PERMIT -> registry.semaphore(key, 2).acquireAsync(TTL, wait);
			};
			return future.handle((lease, ex) -> (ex instanceof CompletionException) ? ex.getCause() : ex);
		}
		CompletableFuture<Throwable> pending = new CompletableFuture<>();
		Thread thread = new Thread(() -> pending.complete(refusal(() -> acquire(registry, kind, mode, key, wait))));
		thread.setDaemon(true);
		thread.start();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> thread.getState() == Thread.State.WAITING || thread.getState() == Thread.State.TIMED_WAITING
					|| pending.isDone());
		return pending;
	}

	/**
	 * Holds the key, through another registry, with what excludes {@code kind}: the
	 * exclusive lock, the write lock for readers and writers, every permit for a permit.
	 */
	private List<Lease> holdEverything(String key, Kind kind) throws Exception {
		LockRegistry other = registry(null);
		Duration ttl = Duration.ofSeconds(30);
		Duration wait = Duration.ofSeconds(5);
		return switch (kind) {
			case EXCLUSIVE -> List.of(other.acquire(key, ttl, wait));
			case READ, WRITE -> List.of(other.acquireWrite(key, ttl, wait));
			case PERMIT ->
				List.of(other.semaphore(key, 2).acquire(ttl, wait), other.semaphore(key, 2).acquire(ttl, wait));
		};
	}

	private static Optional<Lease> acquire(LockRegistry registry, Kind kind, Mode mode, String key, Duration wait)
			throws Exception {
		return switch (mode) {
			case BLOCKING -> Optional.of(switch (kind) {
				case EXCLUSIVE -> registry.acquire(key, TTL, wait);
				case READ -> registry.acquireRead(key, TTL, wait);
				case WRITE -> registry.acquireWrite(key, TTL, wait);
				case PERMIT -> registry.semaphore(key, 2).acquire(TTL, wait);
			});
			case ASYNC -> Optional.of(unwrapped(switch (kind) {
				case EXCLUSIVE -> registry.acquireAsync(key, TTL, wait);
				case READ -> registry.acquireReadAsync(key, TTL, wait);
				case WRITE -> registry.acquireWriteAsync(key, TTL, wait);
				case PERMIT -> registry.semaphore(key, 2).acquireAsync(TTL, wait);
			}));
			case TRY -> switch (kind) {
				case EXCLUSIVE -> registry.tryAcquire(key, TTL);
				case READ -> tryOnce(() -> registry.acquireRead(key, TTL, Duration.ZERO));
				case WRITE -> tryOnce(() -> registry.acquireWrite(key, TTL, Duration.ZERO));
				case PERMIT -> registry.semaphore(key, 2).tryAcquire(TTL);
			};
		};
	}

	/**
	 * One try of a kind that has no {@code tryAcquire}: a wait time of zero, a refusal as
	 * empty.
	 */
	private static Optional<Lease> tryOnce(java.util.function.Supplier<Lease> acquisition) {
		try {
			return Optional.of(acquisition.get());
		}
		catch (LockAcquisitionException ex) {
			if (ex.getReason() == LockAcquisitionException.Reason.HELD) {
				return Optional.empty();
			}
			throw ex;
		}
	}

	private static Lease unwrapped(CompletableFuture<Lease> future) throws Exception {
		try {
			return future.get(30, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof Exception cause) {
				throw cause;
			}
			throw ex;
		}
	}

	/** The refusal an acquisition threw, {@code null} if it came back empty. */
	private static Throwable refusal(Acquire acquire) {
		try {
			Optional<Lease> lease = acquire.call();
			assertThat(lease).as("a lease where a refusal was expected").isEmpty();
			return null;
		}
		catch (CompletionException ex) {
			return ex.getCause();
		}
		catch (Exception ex) {
			return ex;
		}
	}

	private static String observedMode(Mode mode) {
		return (mode == Mode.ASYNC) ? "ASYNC" : "BLOCKING";
	}

	@FunctionalInterface
	private interface Acquire {

		Optional<Lease> call() throws Exception;

	}

	/**
	 * An observer that writes down what it is told, in order.
	 */
	private static final class Recorder implements LockObserver {

		private final List<String> events = Collections.synchronizedList(new ArrayList<>());

		List<String> events() {
			synchronized (this.events) {
				return List.copyOf(this.events);
			}
		}

		@Override
		public Acquiring acquisitionStarted(String key, Duration ttl, Duration waitTime, Mode mode, boolean reentrant) {
			throw new AssertionError("the registry tells the kind");
		}

		@Override
		public Acquiring acquisitionStarted(String key, Duration ttl, Duration waitTime, Mode mode, boolean reentrant,
				Kind kind) {
			this.events.add("started " + kind + " " + mode);
			return new Acquiring() {

				@Override
				public Scope openScope() {
					return () -> {
					};
				}

				@Override
				public void acquired(Lease lease) {
					Recorder.this.events.add("acquired");
				}

				@Override
				public void failed(Throwable failure) {
					Recorder.this.events.add("failed " + failure.getClass().getSimpleName());
				}

				@Override
				public Holding hold(Lease lease) {
					Recorder.this.events.add("hold");
					return new Holding() {

						@Override
						public void released() {
							Recorder.this.events.add("released");
						}

						@Override
						public void lost(LockLostException cause) {
							Recorder.this.events.add("lost");
						}

					};
				}

			};
		}

	}

}
