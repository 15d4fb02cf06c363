package io.github.redlock.engine.waiting;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the end of a lease of this registry wakes its key's line, by each way a hold ends,
 * and the turn a line keeps for its own waiters ({@link Waiting#TURN_NANOS}).
 */
class WaitingHolderGoneTests {

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

	/** A holds the lease, B sleeps behind it with only its deadline scheduled. */
	private Contender[] heldWithOneWaiting() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		a.acquire();
		assertThat(this.waiting.describe(KEY)).startsWith("waiters [2]").contains("holders 1");
		assertThat(this.scheduler.nextDueIn()).isEqualTo(10 * SECOND);
		return new Contender[] { a, b };
	}

	@Test
	void aLeaseThatEndedWithoutAReleaseWakesTheHeadAtOnce() {
		Contender[] ab = heldWithOneWaiting();
		ab[0].hold.ended();
		assertThat(ab[1].attempts).isEqualTo(1);
		assertThat(this.scheduler.pending()).isZero(); // its deadline timer went
	}

	@Test
	void aReleaseThatQueuedNothingWakesTheHeadAtOnce() {
		Contender[] ab = heldWithOneWaiting();
		ab[0].hold.released(false);
		assertThat(ab[1].attempts).isEqualTo(1);
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void aReleaseThatKeepsTheTurnWakesTheHeadAtOnce() {
		Contender[] ab = heldWithOneWaiting();
		ab[0].hold.releasedKeepingTurn();
		assertThat(ab[1].attempts).isEqualTo(1);
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void aReleaseThatQueuedTheLineBehindAnotherProcessLetsTheHeadSleepUntilItsPoll() {
		Contender[] ab = heldWithOneWaiting();
		ab[0].hold.released(true);
		assertThat(ab[1].attempts).isZero();
		assertThat(this.scheduler.pending()).isEqualTo(1);
		assertThat(this.scheduler.nextDueIn()).isEqualTo(RETRY); // the poll, not the
																	// deadline
		this.scheduler.advance(RETRY - 1);
		assertThat(ab[1].attempts).isZero();
		this.scheduler.advance(1);
		assertThat(ab[1].attempts).isEqualTo(1);
	}

	@Test
	void aReleaseThatQueuedTheLineLetsTheHeadTryAtOnceWhenTheHintNamesItsLine() {
		Contender[] ab = heldWithOneWaiting();
		ab[0].hold.released(true);
		this.waiting.hint(KEY, "41@otherprocess");
		assertThat(ab[1].attempts).isZero();
		this.waiting.hint(KEY, "42@" + this.waiting.lineId());
		assertThat(ab[1].attempts).isEqualTo(1);
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void theHeadWaitsForEveryLeaseOfThisRegistryOnTheKeyToEnd() {
		Contender[] ab = heldWithOneWaiting();
		LineHold other = this.waiting.holding(KEY); // a lease taken without standing in
													// line
		ab[0].hold.released(false);
		assertThat(ab[1].attempts).isZero();
		other.released(false);
		assertThat(ab[1].attempts).isEqualTo(1);
	}

	@Test
	void aLeaseEndingWhileTheHeadAttemptsMakesItTryAgainAsSoonAsThatAttemptFailed() {
		Contender a = enter("a", 10 * SECOND);
		// a lease taken meanwhile without standing in line
		this.waiting.holding(KEY).released(false);
		assertThat(a.attempts).isEqualTo(1); // its attempt is still on its way
		a.fail(RETRY);
		assertThat(a.attempts).isEqualTo(2);
		a.fail(RETRY); // not woken this time: it sleeps
		assertThat(a.attempts).isEqualTo(2);
		this.scheduler.advance(RETRY);
		assertThat(a.attempts).isEqualTo(3);
	}

	@Test
	void aLineWithWaitersKeepsTheTurnForTurnNanosFromTheAcquisitionThatBeganIt() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		enter("c", 10 * SECOND);
		a.acquire();
		this.scheduler.advance(Waiting.TURN_NANOS / 2);
		String[] args = this.waiting.releaseArgs(KEY, "secret", 7, null);
		assertThat(args[0]).isEqualTo("secret");
		assertThat(args[1]).isEqualTo("7");
		assertThat(this.waiting.keepsTurn(args)).isTrue();
		a.hold.releasedKeepingTurn();
		b.acquire();
		// b's acquisition is within a's turn: the turn still counts from a's
		this.scheduler.advance(Waiting.TURN_NANOS / 2 - 1);
		assertThat(this.waiting.keepsTurn(this.waiting.releaseArgs(KEY, "secret", 8, null))).isTrue();
		this.scheduler.advance(1);
		String[] after = this.waiting.releaseArgs(KEY, "secret", 8, null);
		assertThat(this.waiting.keepsTurn(after)).isFalse();
		// it names the next process and queues this line behind it, its entry living as
		// long as c may still wait, and looks at the queue (the turn it kept left it as
		// it was)
		long entryMillis = TimeUnit.NANOSECONDS.toMillis(10 * SECOND - Waiting.TURN_NANOS) + 1;
		assertThat(after[2]).startsWith(this.waiting.lineId() + "," + entryMillis + ",").endsWith(",,1");
	}

	@Test
	void aLineWithoutWaitersNeverKeepsTheTurn() {
		Contender a = enter("a", 10 * SECOND);
		a.acquire();
		String[] args = this.waiting.releaseArgs(KEY, "secret", 7, null);
		assertThat(this.waiting.keepsTurn(args)).isFalse();
		assertThat(args[2]).isEqualTo(this.waiting.lineId() + ",,,,");
		assertThat(this.waiting.releaseArgs("no-line", "secret", 7, null)[2]).isEqualTo(this.waiting.lineId() + ",,,,");
	}

	@Test
	void aReleaseThatQueuedNothingAfterTheTurnBeginsANewTurn() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		enter("c", 10 * SECOND);
		a.acquire();
		this.scheduler.advance(Waiting.TURN_NANOS);
		assertThat(this.waiting.keepsTurn(this.waiting.releaseArgs(KEY, "secret", 7, null))).isFalse();
		a.hold.released(false); // no other process was queued
		b.acquire();
		this.scheduler.advance(Waiting.TURN_NANOS - 1);
		assertThat(this.waiting.keepsTurn(this.waiting.releaseArgs(KEY, "secret", 8, null))).isTrue();
	}

	@Test
	void aReleaseThatQueuedTheLineBehindAnotherProcessEndsItsTurnAndItsNextLeaseBeginsANewOne() {
		Contender a = enter("a", 10 * SECOND);
		Contender b = enter("b", 10 * SECOND);
		enter("c", 10 * SECOND);
		a.acquire();
		this.scheduler.advance(Waiting.TURN_NANOS);
		this.waiting.releaseArgs(KEY, "secret", 7, null);
		a.hold.released(true);
		assertThat(b.attempts).isZero();
		this.waiting.hint(KEY, "7@" + this.waiting.lineId()); // its turn came
		assertThat(b.attempts).isEqualTo(1);
		b.acquire();
		// counted from a's acquisition, the turn would be over
		this.scheduler.advance(Waiting.TURN_NANOS - 1);
		assertThat(this.waiting.keepsTurn(this.waiting.releaseArgs(KEY, "secret", 8, null))).isTrue();
	}

}
