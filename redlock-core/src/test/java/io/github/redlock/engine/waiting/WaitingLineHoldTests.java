package io.github.redlock.engine.waiting;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The count of a lease in its key's line, owned through its {@link LineHold}: each hold
 * lowers the count it raised, once, however often and in whichever ways it is ended.
 */
class WaitingLineHoldTests {

	private static final String KEY = "orders";

	private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

	private static final long RETRY = TimeUnit.MILLISECONDS.toNanos(200);

	private final ManualScheduler scheduler = new ManualScheduler();

	private final Waiting waiting = new Waiting(Contender.settings(Duration.ofNanos(RETRY), Duration.ZERO),
			this.scheduler, this.scheduler, System::currentTimeMillis);

	private final Contender.Record record = new Contender.Record();

	private Contender enter(String name, long waitNanos) {
		return Contender.enter(name, this.waiting, KEY, this.scheduler.nanoTime() + waitNanos, this.record);
	}

	private WaitingLine line() {
		return WaitingLine.of(this.waiting, KEY);
	}

	@Test
	void aSecondEndOfAHoldLeavesAnotherLeasesCountAlone() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		a.acquire();
		LineHold other = this.waiting.holding(KEY); // a lease taken without standing in
													// line
		assertThat(line().holders()).isEqualTo(2);
		a.hold.released(false);
		a.hold.released(false);
		a.hold.ended();
		a.hold.releasedKeepingTurn();
		assertThat(line().holders()).isEqualTo(1);
		assertThat(b.attempts).isZero(); // the other lease still holds the key
		other.ended();
		assertThat(line().holders()).isZero();
		assertThat(b.attempts).isEqualTo(1);
	}

	@Test
	void aSecondEndOfAHoldWakesNobody() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		a.acquire();
		a.hold.ended();
		assertThat(b.attempts).isEqualTo(1);
		a.hold.released(false); // while b's attempt is on its way
		b.fail(RETRY);
		// woken again, b would have tried again at once; it sleeps until its poll
		assertThat(b.attempts).isEqualTo(1);
		assertThat(line().waitersAre(WaitingLine.Phase.SLEEPING)).isTrue();
		this.scheduler.advance(RETRY);
		assertThat(b.attempts).isEqualTo(2);
	}

	@Test
	void aHoldCountedAfterItsWaiterGaveUpAndItsLineWentStillEnds() {
		Contender a = enter("a", 10 * SECOND);
		a.giveUp();
		assertThat(line()).isEqualTo(WaitingLine.NONE);
		LineHold hold = a.place.leaveHolding(); // the nodes granted a's attempt after all
		assertThat(hold.unqueue()).isFalse();
		assertThat(line().holders()).isEqualTo(1);
		Contender b = enter("b", 10 * SECOND);
		assertThat(b.place.startsNow()).isFalse(); // it sleeps behind a's lease
		hold.released(false);
		assertThat(b.attempts).isEqualTo(1);
		b.giveUp();
		assertThat(line()).isEqualTo(WaitingLine.NONE);
		hold.ended();
		assertThat(line()).isEqualTo(WaitingLine.NONE);
	}

	@Test
	void leavingWithALeaseCountsItOnce() {
		Contender a = enter("a", 10 * SECOND);
		a.acquire();
		assertThat(a.place.leave()).isFalse(); // done already: the acquisition's
												// completion
		assertThat(line().holders()).isEqualTo(1);
		a.hold.ended();
		assertThat(line()).isEqualTo(WaitingLine.NONE);
	}

	@Test
	void aPermitsHoldEndsOnce() {
		LineHold first = this.waiting.permitHeld(KEY, 2, "7:0");
		LineHold second = this.waiting.permitHeld(KEY, 2, "8:1");
		assertThat(line().ownPermits()).isEqualTo(2);
		first.released(false);
		first.ended();
		assertThat(line().ownPermits()).isEqualTo(1);
		second.releasedKeepingTurn();
		assertThat(line()).isEqualTo(WaitingLine.NONE);
		second.ended();
		assertThat(line()).isEqualTo(WaitingLine.NONE);
	}

}
