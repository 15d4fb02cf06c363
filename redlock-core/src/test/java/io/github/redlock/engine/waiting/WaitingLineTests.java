package io.github.redlock.engine.waiting;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One line per key, without nodes: who attempts, in which order, and when a line goes.
 */
class WaitingLineTests {

	private static final String KEY = "orders";

	private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

	private final ManualScheduler scheduler = new ManualScheduler();

	private final Waiting waiting = new Waiting(Contender.settings(Duration.ofMillis(200), Duration.ZERO),
			this.scheduler, this.scheduler, System::currentTimeMillis);

	private final Contender.Record record = new Contender.Record();

	private Contender enter(String name, long waitNanos) {
		return Contender.enter(name, this.waiting, KEY, this.scheduler.nanoTime() + waitNanos, this.record);
	}

	@Test
	void theFirstWaiterAttemptsAtOnceAndTheOthersWaitWithOnlyTheirDeadlineScheduled() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		Contender c = enter("c", 10 * SECOND);
		assertThat(a.place.startsNow()).isTrue();
		assertThat(b.place.startsNow()).isFalse();
		assertThat(c.place.startsNow()).isFalse();
		assertThat(a.ahead()).isZero();
		assertThat(b.ahead()).isEqualTo(1);
		assertThat(c.ahead()).isEqualTo(2);
		assertThat(this.scheduler.pending()).isEqualTo(2);
		assertThat(this.scheduler.nextDueIn()).isEqualTo(10 * SECOND);
		assertThat(this.waiting.describe(KEY)).startsWith("waiters [1,0,0]");
		this.scheduler.advance(10 * SECOND - 1);
		assertThat(this.record.attempts).containsExactly("a");
		assertThat(this.waiting.waiters()).isEqualTo(3);
	}

	@Test
	void onlyTheHeadRetriesWhileTheOthersWait() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		for (int i = 0; i < 5; i++) {
			assertThat(a.fail(Duration.ofMillis(200))).isTrue();
			assertThat(this.waiting.describe(KEY)).startsWith("waiters [2,0]");
			this.scheduler.advance(Duration.ofMillis(200));
		}
		assertThat(a.attempts).isEqualTo(6);
		assertThat(b.attempts).isZero();
		assertThat(this.record.mostInFlight).isEqualTo(1);
	}

	@Test
	void waitersTakeTheirTurnsInTheOrderTheyEntered() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		Contender c = enter("c", 10 * SECOND);
		Contender d = enter("d", 10 * SECOND);
		a.acquire();
		assertThat(this.record.attempts).containsExactly("a"); // b sleeps while a holds
		a.hold.released(false);
		assertThat(this.record.attempts).containsExactly("a", "b");
		b.giveUp(); // a waiter that gave up hands the turn on at once
		assertThat(this.record.attempts).containsExactly("a", "b", "c");
		c.fail(Duration.ofMillis(200));
		this.scheduler.advance(Duration.ofMillis(200));
		c.acquire();
		c.hold.ended();
		d.acquire();
		assertThat(this.record.attempts).containsExactly("a", "b", "c", "c", "d");
		assertThat(this.record.mostInFlight).isEqualTo(1);
	}

	@Test
	void aWaiterWhoseWaitTimeIsSpentInLineFailsWithoutAnAttempt() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", SECOND);
		Contender c = enter("c", 10 * SECOND);
		this.scheduler.advance(SECOND - 1);
		assertThat(b.timedOut).isFalse();
		this.scheduler.advance(1);
		assertThat(b.timedOut).isTrue();
		assertThat(b.attempts).isZero();
		assertThat(c.ahead()).isEqualTo(1);
		assertThat(this.scheduler.pending()).isEqualTo(1); // c's deadline only
		a.acquire();
		a.hold.released(false);
		assertThat(this.record.attempts).containsExactly("a", "c");
		assertThat(this.record.timedOut).containsExactly("b");
	}

	/**
	 * Failed before the fix: Waiter.fire ran the attempt of a head sleeping behind this
	 * registry's own lease at its deadline, one quorum round that could only be refused.
	 */
	@Test
	void aHeadWhoseWaitTimeIsSpentBehindThisRegistrysLeaseFailsWithoutAnAttempt() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", SECOND);
		a.acquire();
		this.scheduler.advance(SECOND);
		assertThat(b.attempts).isZero();
		assertThat(b.timedOut).isTrue();
	}

	@Test
	void aLineLeavesTheMapOnlyWhenItHasNoWaiterAndNoHolder() {
		assertThat(this.waiting.describe(KEY)).isEqualTo("no line");
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		a.giveUp();
		assertThat(this.waiting.describe(KEY)).startsWith("waiters [1]");
		b.acquire();
		assertThat(this.waiting.describe(KEY))
			.isEqualTo("waiters [] (0 queued, 1 attempting, 2 sleeping), holders 1, own permits 0, hinted false");
		b.hold.released(false);
		assertThat(this.waiting.describe(KEY)).isEqualTo("no line");
		LineHold hold = this.waiting.holding(KEY);
		assertThat(this.waiting.describe(KEY)).contains("holders 1");
		hold.ended();
		assertThat(this.waiting.describe(KEY)).isEqualTo("no line");
		assertThat(this.waiting.waiters()).isZero();
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void aWaiterThatComesAfterItsLineWentStartsANewOneAndAttemptsAtOnce() {
		enter("a", 10 * SECOND).giveUp();
		assertThat(this.waiting.describe(KEY)).isEqualTo("no line");
		Contender b = enter("b", 10 * SECOND);
		assertThat(b.place.startsNow()).isTrue();
		assertThat(this.record.attempts).containsExactly("a", "b");
	}

	@Test
	void aSecondEndOfAHoldNeverTakesTheCountBelowZero() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		Contender c = enter("c", 10 * SECOND);
		a.acquire();
		a.hold.ended();
		a.hold.ended(); // once too often
		assertThat(this.waiting.describe(KEY)).contains("holders 0");
		b.acquire();
		// counted below zero, b's lease would have left the count at 0 and c tried beside
		// it
		assertThat(c.attempts).isZero();
		assertThat(this.waiting.describe(KEY)).contains("holders 1");
	}

	@Test
	void aLeaseThatCameAfterItsWaiterGaveUpIsStillCounted() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		Contender c = enter("c", 10 * SECOND);
		a.giveUp();
		assertThat(this.record.attempts).containsExactly("a", "b");
		a.hold = a.place.leaveHolding(); // the nodes granted a's attempt after all
		assertThat(a.hold.unqueue()).isFalse();
		assertThat(this.waiting.describe(KEY)).contains("holders 1");
		b.acquire();
		assertThat(this.waiting.describe(KEY)).contains("holders 2");
		a.hold.released(false);
		assertThat(c.attempts).isZero();
		b.hold.released(false);
		assertThat(c.attempts).isEqualTo(1);
	}

	@Test
	void leavingTwiceChangesNothing() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		a.giveUp();
		assertThat(a.place.leave()).isFalse();
		assertThat(b.attempts).isEqualTo(1);
		assertThat(this.waiting.describe(KEY)).startsWith("waiters [1]").contains("holders 0");
	}

}
