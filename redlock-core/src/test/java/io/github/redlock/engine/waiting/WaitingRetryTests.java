package io.github.redlock.engine.waiting;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a head tries again: the retry delay, its bounds (the holder's time to live, the
 * deadline), the back-off of a queued head's polls, and its line's entry in the nodes'
 * queues.
 */
class WaitingRetryTests {

	private static final String KEY = "orders";

	private static final long MILLI = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

	private static final long RETRY = 200 * MILLI;

	private final ManualScheduler scheduler = new ManualScheduler();

	private final Waiting waiting = new Waiting(Contender.settings(Duration.ofNanos(RETRY), Duration.ZERO),
			this.scheduler, this.scheduler, System::currentTimeMillis);

	private final Contender.Record record = new Contender.Record();

	private Contender enter(String name, long waitNanos) {
		return Contender.enter(name, this.waiting, KEY, this.scheduler.nanoTime() + waitNanos, this.record);
	}

	@Test
	void theRetryDelayIsTheConfiguredDelayWhenNoNodeReportedAHolder() {
		assertThat(this.waiting.retryDelayNanos()).isEqualTo(RETRY);
		assertThat(this.waiting.retryDelay(-1)).isEqualTo(RETRY);
	}

	@Test
	void theRetryDelayEndsAMillisecondAfterTheHoldersTimeToLive() {
		assertThat(this.waiting.retryDelay(50 * MILLI)).isEqualTo(51 * MILLI);
		assertThat(this.waiting.retryDelay(0)).isEqualTo(MILLI);
		assertThat(this.waiting.retryDelay(SECOND)).isEqualTo(RETRY);
	}

	@Test
	void theRetryDelayAddsAJitterBelowTheConfiguredJitter() {
		Waiting jittered = new Waiting(Contender.settings(Duration.ofNanos(RETRY), Duration.ofMillis(100)),
				this.scheduler, this.scheduler, System::currentTimeMillis);
		Set<Long> delays = new HashSet<>();
		for (int i = 0; i < 1000; i++) {
			long delay = jittered.retryDelay(-1);
			assertThat(delay).isBetween(RETRY, RETRY + 100 * MILLI - 1);
			delays.add(delay);
		}
		assertThat(delays).hasSizeGreaterThan(100);
		assertThat(jittered.retryDelay(10 * MILLI)).isEqualTo(11 * MILLI);
	}

	@Test
	void doublingsLengthenTheDelayBeforeTheHoldersTimeToLiveCapsIt() {
		assertThat(this.waiting.retryDelay(-1, 0)).isEqualTo(RETRY);
		assertThat(this.waiting.retryDelay(-1, 1)).isEqualTo(2 * RETRY);
		assertThat(this.waiting.retryDelay(-1, 4)).isEqualTo(16 * RETRY);
		assertThat(this.waiting.retryDelay(500 * MILLI, 4)).isEqualTo(501 * MILLI);
	}

	@Test
	void aHeadTriesAgainAfterTheDelayItWasGiven() {
		Contender a = enter("a", 10 * SECOND);
		a.fail(this.waiting.retryDelay(50 * MILLI));
		this.scheduler.advance(51 * MILLI - 1);
		assertThat(a.attempts).isEqualTo(1);
		this.scheduler.advance(1);
		assertThat(a.attempts).isEqualTo(2);
	}

	@Test
	void aHeadNeverSleepsPastItsDeadline() {
		Contender a = enter("a", 3 * SECOND);
		a.fail(10 * SECOND);
		assertThat(this.scheduler.nextDueIn()).isEqualTo(3 * SECOND);
		this.scheduler.advance(3 * SECOND - 1);
		assertThat(a.attempts).isEqualTo(1);
		this.scheduler.advance(1);
		assertThat(a.attempts).isEqualTo(2);
	}

	@Test
	void aRetryThatTheClosingSchedulerRefusesSaysSo() {
		Contender a = enter("a", 10 * SECOND);
		this.scheduler.shutdown();
		assertThat(a.fail(RETRY)).isFalse();
	}

	@Test
	void aRetryOfAWaiterThatIsNotAttemptingChangesNothing() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		assertThat(b.place.retry(0)).isTrue();
		this.scheduler.runDue();
		assertThat(b.attempts).isZero();
		assertThat(a.attempts).isEqualTo(1);
	}

	@Test
	void aHeadThatTheNodesDoNotKeepQueuedPollsAtTheRetryDelay() {
		Contender a = enter("a", 10 * SECOND);
		for (int i = 0; i < 6; i++) {
			assertThat(a.place.pollBackoff()).isZero();
		}
	}

	@Test
	void aQueuedHeadPollsHalfAsOftenWithEachPollUpToSixteenTimesTheRetryDelay() {
		Contender a = enter("a", 10 * SECOND);
		assertThat(a.place.queueArgs()).isNotNull();
		int[] backoffs = new int[7];
		for (int i = 0; i < backoffs.length; i++) {
			backoffs[i] = a.place.pollBackoff();
		}
		assertThat(backoffs).containsExactly(0, 1, 2, 3, 4, 4, 4);
		assertThat(this.waiting.retryDelay(-1, 4)).isEqualTo(16 * RETRY);
	}

	@Test
	void aHintNamingTheLineEndsItsPollsBackOff() {
		Contender a = enter("a", 10 * SECOND);
		a.failQueued(RETRY);
		a.place.pollBackoff();
		assertThat(a.place.pollBackoff()).isEqualTo(1);
		this.waiting.hint(KEY, "42@" + this.waiting.lineId());
		assertThat(a.place.pollBackoff()).isZero();
		assertThat(a.place.pollBackoff()).isZero();
	}

	@Test
	void theBackOffEndsWhenTheLinesEntryInTheNodesQueuesExpires() {
		Contender a = enter("a", TimeUnit.HOURS.toNanos(1));
		a.place.queueArgs();
		assertThat(a.place.pollBackoff()).isZero();
		assertThat(a.place.pollBackoff()).isEqualTo(1);
		this.scheduler.advance(Turns.ENTRY_FLOOR_NANOS - 1);
		assertThat(a.place.pollBackoff()).isEqualTo(2);
		this.scheduler.advance(1);
		assertThat(a.place.pollBackoff()).isZero();
	}

	@Test
	void aReleaseThatQueuedTheLineBehindAnotherProcessMakesItsHeadsPollsBackOff() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		a.acquire();
		this.scheduler.advance(Waiting.TURN_NANOS); // its release hands the turn on
		this.waiting.releaseArgs(KEY, "secret", 7, null);
		a.hold.released(true);
		this.scheduler.advance(RETRY); // its poll
		assertThat(b.attempts).isEqualTo(1);
		assertThat(b.place.pollBackoff()).isZero();
		assertThat(b.place.pollBackoff()).isEqualTo(1);
	}

	@Test
	void aReleaseThatQueuedNothingLeavesTheHeadsPollsAtTheRetryDelay() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		a.acquire();
		this.scheduler.advance(Waiting.TURN_NANOS);
		this.waiting.releaseArgs(KEY, "secret", 7, null);
		a.hold.released(false);
		assertThat(b.attempts).isEqualTo(1);
		assertThat(b.place.pollBackoff()).isZero();
		assertThat(b.place.pollBackoff()).isZero();
	}

	@Test
	void queueArgsNameTheLineAndHowLongItsEntryLivesAndKeepItsPlace() {
		Contender a = enter("a", TimeUnit.HOURS.toNanos(1));
		String[] first = a.place.queueArgs();
		assertThat(first[1]).isEqualTo(this.waiting.lineId());
		assertThat(first[2]).isEqualTo(String.valueOf(TimeUnit.NANOSECONDS.toMillis(Turns.ENTRY_FLOOR_NANOS) + 1));
		this.scheduler.advance(SECOND);
		String[] again = a.place.queueArgs();
		assertThat(again[0]).isEqualTo(first[0]); // the same stamp: the same place
	}

	@Test
	void aLinesEntryLivesNoLongerThanItsLongestWaiterMayWait() {
		Contender a = enter("a", 10 * SECOND);
		enter("b", 20 * SECOND);
		assertThat(a.place.queueArgs()[2]).isEqualTo("20001");
		assertThat(this.waiting.entryNanos(20 * SECOND)).isEqualTo(20 * SECOND);
		assertThat(this.waiting.entryNanos(TimeUnit.HOURS.toNanos(1))).isEqualTo(Turns.ENTRY_FLOOR_NANOS);
		Waiting slow = new Waiting(Contender.settings(Duration.ofSeconds(5), Duration.ofSeconds(1)), this.scheduler,
				this.scheduler, System::currentTimeMillis);
		// twice the longest pause between two polls: 2 x 16 x (5 s + 1 s)
		assertThat(slow.entryNanos(TimeUnit.HOURS.toNanos(1))).isEqualTo(192 * SECOND);
	}

	@Test
	void aWaiterThatIsNotAttemptingIsNotQueued() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		assertThat(b.place.queueArgs()).isNull();
		a.fail(RETRY);
		assertThat(a.place.queueArgs()).isNull();
	}

	@Test
	void theLastWaiterLeavingAQueuedLineHasTheCallerTakeItOutOfTheQueues() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		a.failQueued(RETRY);
		a.giveUp();
		assertThat(a.unqueue).isFalse(); // b still waits in it
		b.giveUp();
		assertThat(b.unqueue).isTrue();
	}

	@Test
	void aWaiterLeavingALineThatIsNotQueuedHasNothingTakenOut() {
		Contender a = enter("a", 10 * SECOND);
		a.fail(RETRY);
		a.giveUp();
		assertThat(a.unqueue).isFalse();
	}

	@Test
	void aWaiterThatAcquiredWhileQueuedWithoutAReleaseNamingItHasTheLineTakenOut() {
		Contender a = enter("a", 10 * SECOND);
		a.failQueued(RETRY);
		this.scheduler.advance(RETRY);
		a.acquire();
		assertThat(a.unqueue).isTrue();
		// and its release looks at the queue, for the lines queued with it
		assertThat(this.waiting.releaseArgs(KEY, "secret", 7, null)[2]).isEqualTo(this.waiting.lineId() + ",,,,1");
	}

	@Test
	void aWaiterThatAcquiredOnAReleaseNamingItHasNothingTakenOut() {
		Contender a = enter("a", 10 * SECOND);
		a.failQueued(RETRY);
		this.waiting.hint(KEY, "42@" + this.waiting.lineId());
		a.acquire();
		assertThat(a.unqueue).isFalse();
	}

}
