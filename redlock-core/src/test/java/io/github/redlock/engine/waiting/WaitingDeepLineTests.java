package io.github.redlock.engine.waiting;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thousand waiters on one key: each gets its turn, in order, one attempt at a time, on
 * a stack that stays one attempt deep (attempts hand over through {@code Waiting.run}),
 * and nothing stays scheduled once all left.
 */
class WaitingDeepLineTests {

	private static final String KEY = "orders";

	private static final int WAITERS = 1000;

	private final ManualScheduler scheduler = new ManualScheduler();

	private final Waiting waiting = new Waiting(Contender.settings(Duration.ofMillis(200), Duration.ZERO),
			this.scheduler, this.scheduler, System::currentTimeMillis);

	private final Contender.Record record = new Contender.Record();

	private List<Contender> line() {
		List<Contender> contenders = new ArrayList<>();
		long deadline = this.scheduler.nanoTime() + TimeUnit.MINUTES.toNanos(1);
		for (int i = 0; i < WAITERS; i++) {
			contenders.add(Contender.enter("w" + i, this.waiting, KEY, deadline, this.record));
		}
		assertThat(this.waiting.waiters()).isEqualTo(WAITERS);
		assertThat(this.scheduler.pending()).isEqualTo(WAITERS - 1); // their deadlines
		return contenders;
	}

	private List<String> inOrder() {
		return IntStream.range(0, WAITERS).mapToObj((i) -> "w" + i).toList();
	}

	private void assertAllLeftAndNothingIsScheduled() {
		assertThat(this.waiting.waiters()).isZero();
		assertThat(this.waiting.describe(KEY)).isEqualTo("no line");
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void aThousandWaitersEachGetTheirTurnInOrderWithOneAttemptInFlight() {
		List<Contender> contenders = line();
		for (int i = 0; i < WAITERS; i++) {
			Contender head = contenders.get(i);
			assertThat(this.record.inFlight).isEqualTo(1);
			assertThat(head.attempting).as("w" + i + " attempts").isTrue();
			assertThat(head.ahead()).isZero();
			head.acquire();
			assertThat(this.record.inFlight).isZero(); // the next sleeps while it holds
			head.hold.released(false);
		}
		assertThat(this.record.attempts).isEqualTo(inOrder());
		assertThat(this.record.mostInFlight).isEqualTo(1);
		assertAllLeftAndNothingIsScheduled();
	}

	@Test
	void aThousandHandOversThatEachEndOnTheirAttemptsStackStayOneAttemptDeep() {
		List<Contender> contenders = line();
		this.record.depth = true;
		for (Contender contender : contenders) {
			contender.onAttempt = (self) -> {
				self.acquire();
				self.hold.released(false);
			};
		}
		contenders.get(0).acquire(); // the head's first attempt, sent before the others
		contenders.get(0).hold.released(false);
		assertThat(this.record.attempts).isEqualTo(inOrder());
		assertThat(this.record.mostInFlight).isEqualTo(1);
		// every attempt after the first (sent before depths were noted) runs from the
		// outermost hand-over, none nested
		assertThat(this.record.depths).hasSize(WAITERS - 1).containsOnly(this.record.depths.get(0));
		assertAllLeftAndNothingIsScheduled();
	}

	@Test
	void aThousandWaitersGivingUpOnTheirAttemptsStackStayOneAttemptDeep() {
		List<Contender> contenders = line();
		this.record.depth = true;
		for (Contender contender : contenders) {
			contender.onAttempt = Contender::giveUp;
		}
		contenders.get(0).giveUp();
		assertThat(this.record.attempts).isEqualTo(inOrder());
		assertThat(this.record.depths).hasSize(WAITERS - 1).containsOnly(this.record.depths.get(0));
		assertAllLeftAndNothingIsScheduled();
	}

	@Test
	void aThousandWaitersWhoseWaitTimeRunsOutInLineAllFailWithoutAnAttempt() {
		List<Contender> contenders = line();
		this.scheduler.advance(TimeUnit.MINUTES.toNanos(1));
		// the head is attempting, with no timer: its acquisition fails on its attempt
		assertThat(this.record.attempts).containsExactly("w0");
		assertThat(this.record.timedOut).isEqualTo(inOrder().subList(1, WAITERS));
		contenders.get(0).giveUp();
		assertAllLeftAndNothingIsScheduled();
	}

}
