package io.github.redlock.engine.waiting;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@link ManualScheduler} that the waiting tests rely on: nothing runs until the
 * clock is advanced, then what is due runs in order.
 */
class WaitingManualSchedulerTests {

	private final ManualScheduler scheduler = new ManualScheduler(1000);

	private final List<String> ran = new ArrayList<>();

	@Test
	void tasksRunOnlyWhenTheClockReachesThemInTheOrderTheyAreDue() {
		this.scheduler.schedule(() -> this.ran.add("b@20"), 20, TimeUnit.NANOSECONDS);
		this.scheduler.schedule(() -> this.ran.add("a@10"), 10, TimeUnit.NANOSECONDS);
		this.scheduler.schedule(() -> this.ran.add("c@20"), 20, TimeUnit.NANOSECONDS);
		this.scheduler.advance(9);
		assertThat(this.ran).isEmpty();
		this.scheduler.advance(11);
		assertThat(this.ran).containsExactly("a@10", "b@20", "c@20");
		assertThat(this.scheduler.nanoTime()).isEqualTo(1020);
	}

	@Test
	void aTaskSeesTheClockAtItsTimeAndOneItSchedulesWithinTheAdvanceRunsToo() {
		this.scheduler.schedule(() -> {
			this.ran.add("first@" + this.scheduler.nanoTime());
			this.scheduler.schedule(() -> this.ran.add("second@" + this.scheduler.nanoTime()), 5, TimeUnit.NANOSECONDS);
		}, 10, TimeUnit.NANOSECONDS);
		this.scheduler.advance(100);
		assertThat(this.ran).containsExactly("first@1010", "second@1015");
	}

	@Test
	void executedAndSubmittedTasksRunOnTheNextAdvanceInOrder() throws Exception {
		this.scheduler.execute(() -> this.ran.add("execute"));
		Future<String> submitted = this.scheduler.submit(() -> "submitted");
		this.scheduler.submit(() -> this.ran.add("submit"));
		assertThat(this.ran).isEmpty();
		assertThat(submitted.isDone()).isFalse();
		this.scheduler.runDue();
		assertThat(this.ran).containsExactly("execute", "submit");
		assertThat(submitted.get()).isEqualTo("submitted");
	}

	@Test
	void aCancelledTaskNeverRunsAndIsNoLongerPending() {
		ScheduledFuture<?> cancelled = this.scheduler.schedule(() -> this.ran.add("cancelled"), 10,
				TimeUnit.NANOSECONDS);
		this.scheduler.schedule(() -> this.ran.add("kept"), 20, TimeUnit.NANOSECONDS);
		assertThat(this.scheduler.pending()).isEqualTo(2);
		assertThat(cancelled.getDelay(TimeUnit.NANOSECONDS)).isEqualTo(10);
		assertThat(cancelled.cancel(false)).isTrue();
		assertThat(this.scheduler.pending()).isEqualTo(1);
		this.scheduler.advance(100);
		assertThat(this.ran).containsExactly("kept");
		assertThat(cancelled.isCancelled()).isTrue();
	}

	@Test
	void periodicTasksRunAtTheirRateUntilCancelled() {
		ScheduledFuture<?> ticks = this.scheduler
			.scheduleAtFixedRate(() -> this.ran.add("tick@" + this.scheduler.nanoTime()), 10, 10, TimeUnit.NANOSECONDS);
		this.scheduler.advance(35);
		ticks.cancel(false);
		this.scheduler.advance(100);
		assertThat(this.ran).containsExactly("tick@1010", "tick@1020", "tick@1030");
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void aShutDownSchedulerRefusesNewTasks() {
		this.scheduler.shutdown();
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> this.scheduler.schedule(() -> this.ran.add("late"), 1, TimeUnit.NANOSECONDS));
		assertThat(this.scheduler.isTerminated()).isTrue();
	}

	@Test
	void aTaskThatThrowsFailsTheAdvanceAfterTheOthersRan() {
		this.scheduler.execute(() -> {
			throw new IllegalStateException("boom");
		});
		this.scheduler.execute(() -> this.ran.add("after"));
		assertThatExceptionOfType(AssertionError.class).isThrownBy(this.scheduler::runDue)
			.withRootCauseInstanceOf(IllegalStateException.class);
		assertThat(this.ran).containsExactly("after");
	}

}
