package io.github.redlock.observation;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Observations of acquisitions and holds against real nodes, with Micrometer's
 * {@link TestObservationRegistry} (which also checks that scopes open and close on one
 * thread, in order) and micrometer-tracing's {@link SimpleTracer} for the spans and their
 * parents.
 */
class LockObservationIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	private final SimpleTracer tracer = new SimpleTracer();

	/** Which thread saw the acquisition's scope open, and what was current in it. */
	private final List<String> scopes = new CopyOnWriteArrayList<>();

	private RedlockRegistry registry;

	@BeforeEach
	void registry() {
		this.observations.observationConfig().observationHandler(new DefaultTracingObservationHandler(this.tracer));
		this.observations.observationConfig().observationHandler(new ObservationHandler<LockAcquisitionContext>() {

			@Override
			public void onScopeOpened(LockAcquisitionContext context) {
				Observation current = LockObservationIntegrationTests.this.observations.getCurrentObservation();
				LockObservationIntegrationTests.this.scopes.add(Thread.currentThread().getName() + " "
						+ ((current != null) ? current.getContext().getName() : null));
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return context instanceof LockAcquisitionContext;
			}

		});
		this.registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(false)
			.nodeTimeout(Duration.ofMillis(200))
			.observer(new ObservationLockObserver(this.observations))
			.build()
			.start();
	}

	@AfterEach
	void close() {
		this.registry.close();
	}

	/**
	 * Read, write and permit acquisitions are observed as the exclusive lock's are, told
	 * apart by {@code redlock.kind}. Before, none of them was observed: "Expecting
	 * actual: [] to contain exactly in any order".
	 */
	@Test
	void readWriteAndPermitAcquisitionsAndHoldsAreObservedWithTheirKind() {
		Duration ttl = Duration.ofSeconds(3);
		Duration wait = Duration.ofSeconds(2);
		try (Lease read = this.registry.acquireRead("doc:1", ttl, wait)) {
			// an upgrade: refused by this thread's own read lock, a defect of the caller
			assertThatThrownBy(() -> this.registry.acquireWrite("doc:1", ttl, wait))
				.isInstanceOf(LockAcquisitionException.class);
		}
		try (Lease write = this.registry.acquireWrite("doc:1", ttl, wait)) {
			assertThat(write.isHeld()).isTrue();
		}
		try (Lease permit = this.registry.semaphore("exports", 2).acquire(ttl, wait)) {
			assertThat(permit.isHeld()).isTrue();
		}
		assertThat(tagsOf("redlock acquire")).containsExactlyInAnyOrder("read acquired blocking",
				"write error blocking", "write acquired blocking", "permit acquired blocking");
		assertThat(tagsOf("redlock hold")).containsExactlyInAnyOrder("read released null", "write released null",
				"permit released null");
	}

	private List<String> tagsOf(String spanName) {
		return this.tracer.getSpans()
			.stream()
			.filter((span) -> span.getName().equals(spanName))
			.map((span) -> span.getTags().get("redlock.kind") + " " + span.getTags().get("redlock.outcome") + " "
					+ span.getTags().get("redlock.mode"))
			.toList();
	}

	@Test
	void aBlockingAcquisitionIsAChildOfTheCallersObservationInScopeWhileItWaitsAndItsHoldEndsAtRelease() {
		Observation request = Observation.start("request", this.observations);
		long token;
		try (Observation.Scope scope = request.openScope()) {
			try (Lease lease = this.registry.acquire("order:1", Duration.ofSeconds(3), Duration.ofSeconds(2))) {
				token = lease.fencingToken();
			}
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
		request.stop();
		SimpleSpan parent = span("request");
		SimpleSpan acquire = span("redlock acquire");
		SimpleSpan hold = span("redlock hold");
		assertThat(acquire.getParentId()).isEqualTo(parent.getSpanId());
		assertThat(acquire.getTraceId()).isEqualTo(parent.getTraceId());
		assertThat(acquire.getTags())
			.containsAllEntriesOf(Map.of("redlock.key", "order:1", "redlock.outcome", "acquired", "redlock.mode",
					"blocking", "redlock.reentrant", "false", "redlock.fencing.token", String.valueOf(token)));
		assertThat(acquire.getError()).isNull();
		assertThat(hold.getParentId()).as("the hold is a sibling of the acquisition").isEqualTo(parent.getSpanId());
		assertThat(hold.getTags()).containsAllEntriesOf(Map.of("redlock.key", "order:1", "redlock.outcome", "released",
				"redlock.fencing.token", String.valueOf(token)));
		assertThat(hold.getStartTimestamp()).isAfterOrEqualTo(acquire.getEndTimestamp());
		assertThat(this.scopes).containsExactly(Thread.currentThread().getName() + " redlock.acquisition");
		assertThat(this.observations).hasNumberOfObservationsEqualTo(3)
			.hasObservationWithNameEqualTo("redlock.acquisition")
			.that()
			.hasBeenStopped()
			.hasLowCardinalityKeyValue("redlock.outcome", "acquired")
			.hasHighCardinalityKeyValue("redlock.key", "order:1");
	}

	@Test
	void anAsyncAcquisitionIsAChildOfTheCallersObservationThoughItEndsOnAnotherThread() {
		Observation request = Observation.start("request", this.observations);
		CompletableFuture<Lease> pending;
		try (Observation.Scope scope = request.openScope()) {
			pending = this.registry.acquireAsync("order:2", Duration.ofSeconds(3), Duration.ofSeconds(2));
		}
		Lease lease = pending.join();
		lease.releaseAsync().join();
		request.stop();
		SimpleSpan parent = span("request");
		SimpleSpan acquire = span("redlock acquire");
		SimpleSpan hold = span("redlock hold");
		assertThat(acquire.getParentId()).isEqualTo(parent.getSpanId());
		assertThat(acquire.getTags()).containsEntry("redlock.mode", "async")
			.containsEntry("redlock.outcome", "acquired");
		assertThat(hold.getParentId()).as("granted on a callback thread, still under the caller")
			.isEqualTo(parent.getSpanId());
		assertThat(hold.getTags()).containsEntry("redlock.outcome", "released");
		assertThat(this.scopes).as("an async caller does not wait: no scope").isEmpty();
	}

	@Test
	void aReentrantAcquisitionIsMarkedAndJoinsTheHoldInProgress() throws InterruptedException {
		try (Lease outer = this.registry.acquire("order:3", Duration.ofSeconds(3), Duration.ofSeconds(2))) {
			try (Lease inner = this.registry.acquire("order:3", Duration.ofSeconds(3), Duration.ofSeconds(2))) {
				assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			}
		}
		assertThat(spans("redlock acquire")).extracting((span) -> span.getTags().get("redlock.reentrant"))
			.containsExactly("false", "true");
		assertThat(spans("redlock hold")).singleElement()
			.satisfies((hold) -> assertThat(hold.getTags()).containsEntry("redlock.outcome", "released"));
	}

	@Test
	void aBusyLockEndsTheAcquisitionTimedOutWithoutAnErrorAndNoQuorumWithOne() throws Exception {
		try (Lease held = this.registry.acquire("order:4", Duration.ofSeconds(3), Duration.ofSeconds(2))) {
			// another thread: this one would re-enter
			Optional<Lease> busy = CompletableFuture
				.supplyAsync(() -> this.registry.tryAcquire("order:4", Duration.ofSeconds(3)))
				.join();
			assertThat(busy).isEmpty();
		}
		SimpleSpan timedOut = spans("redlock acquire").get(1);
		assertThat(timedOut.getTags()).containsEntry("redlock.outcome", "timed_out");
		assertThat(timedOut.getError()).as("contention is no fault").isNull();
		fleet.node(0).kill();
		fleet.node(1).kill();
		assertThatThrownBy(() -> this.registry.acquire("order:5", Duration.ofSeconds(3), Duration.ofMillis(500)))
			.isInstanceOf(LockAcquisitionException.class);
		SimpleSpan noQuorum = spans("redlock acquire").get(2);
		assertThat(noQuorum.getTags()).containsEntry("redlock.outcome", "no_quorum");
		assertThat(noQuorum.getError()).isInstanceOf(LockAcquisitionException.class);
		assertThat(spans("redlock hold")).hasSize(1);
	}

	@Test
	void aLostLeaseEndsItsHoldAsLostWithTheLossAsError() throws InterruptedException {
		Lease lease = this.registry.acquire("order:6", Duration.ofSeconds(1), Duration.ofSeconds(2), true);
		fleet.node(0).kill();
		fleet.node(1).kill();
		await().atMost(Duration.ofSeconds(10)).until(() -> !spans("redlock hold").isEmpty());
		lease.release();
		SimpleSpan hold = span("redlock hold");
		assertThat(hold.getTags()).containsEntry("redlock.outcome", "lost").containsEntry("redlock.key", "order:6");
		assertThat(hold.getError()).isInstanceOf(LockLostException.class);
		assertThat(spans("redlock hold")).as("released after the loss: still one hold, lost").hasSize(1);
	}

	@Test
	void anInterruptedWaitEndsTheAcquisitionInterrupted() throws Exception {
		try (Lease held = this.registry.acquire("order:7", Duration.ofSeconds(3), Duration.ofSeconds(2))) {
			AtomicReference<Throwable> failure = new AtomicReference<>();
			CountDownLatch started = new CountDownLatch(1);
			Thread waiter = new Thread(() -> {
				started.countDown();
				try {
					this.registry.acquire("order:7", Duration.ofSeconds(3), Duration.ofSeconds(30));
				}
				catch (Throwable ex) {
					failure.set(ex);
				}
			});
			waiter.start();
			started.await();
			await().atMost(Duration.ofSeconds(10)).until(() -> this.scopes.size() == 2);
			waiter.interrupt();
			waiter.join(TimeUnit.SECONDS.toMillis(10));
			assertThat(failure.get()).isInstanceOf(InterruptedException.class);
		}
		assertThat(spans("redlock acquire")).extracting((span) -> span.getTags().get("redlock.outcome"))
			.containsExactly("acquired", "interrupted");
	}

	@Test
	void aCancelledAsyncAcquisitionEndsCancelled() throws InterruptedException {
		try (Lease held = this.registry.acquire("order:8", Duration.ofSeconds(3), Duration.ofSeconds(2))) {
			CompletableFuture<Lease> pending = this.registry.acquireAsync("order:8", Duration.ofSeconds(3),
					Duration.ofSeconds(30));
			pending.cancel(false);
			assertThatThrownBy(pending::join).isInstanceOf(CancellationException.class);
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> spans("redlock acquire").size() == 2);
		assertThat(spans("redlock acquire")).extracting((span) -> span.getTags().get("redlock.outcome"))
			.containsExactlyInAnyOrder("acquired", "cancelled");
	}

	private SimpleSpan span(String name) {
		return spans(name).stream().reduce((first, second) -> {
			throw new AssertionError("More than one span named " + name + ": " + spans(name));
		}).orElseThrow(() -> new AssertionError("No span named " + name + " in " + this.tracer.getSpans()));
	}

	private List<SimpleSpan> spans(String name) {
		return this.tracer.getSpans()
			.stream()
			.filter((span) -> name.equals(span.getName()))
			.filter((span) -> span.getEndTimestamp() != null && !span.getEndTimestamp().equals(java.time.Instant.EPOCH))
			.toList();
	}

}
