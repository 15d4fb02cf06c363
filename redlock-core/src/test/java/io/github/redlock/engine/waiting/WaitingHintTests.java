package io.github.redlock.engine.waiting;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Release hints from the nodes: which wake the head, which are echoes of one release, and
 * how a line whose turn a release named gathers every node's hint before it tries
 * ({@link Waiting#HINTS_GRACE_NANOS}).
 */
class WaitingHintTests {

	private static final String KEY = "orders";

	private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

	/** Longer than any wait here, so that only a hint wakes a head. */
	private static final long POLL = 30 * SECOND;

	private final ManualScheduler scheduler = new ManualScheduler();

	private final Waiting waiting = new Waiting(Contender.settings(Duration.ofNanos(POLL), Duration.ZERO),
			this.scheduler, this.scheduler, System::currentTimeMillis);

	private final Contender.Record record = new Contender.Record();

	/** A head whose attempt a holder elsewhere refused: it sleeps until its poll. */
	private Contender sleepingHead() {
		Contender a = Contender.enter("a", this.waiting, KEY, this.scheduler.nanoTime() + 60 * SECOND, this.record);
		a.fail(POLL);
		assertThat(this.waiting.describe(KEY)).startsWith("waiters [2]");
		return a;
	}

	private String named(String token) {
		return token + "@" + this.waiting.lineId();
	}

	@Test
	void aHintOfAReleaseElsewhereWakesTheSleepingHeadAtOnce() {
		Contender a = sleepingHead();
		this.waiting.hint(KEY, "42");
		assertThat(a.attempts).isEqualTo(2);
		assertThat(this.scheduler.pending()).isZero(); // its poll went
	}

	@Test
	void aHintAfterSubscribingWakesTheSleepingHead() {
		Contender a = sleepingHead();
		this.waiting.hint(KEY, null);
		assertThat(a.attempts).isEqualTo(2);
	}

	@Test
	void aHintForAKeyWithoutALineWakesNobody() {
		Contender a = sleepingHead();
		this.waiting.hint("other-key", "42");
		assertThat(a.attempts).isEqualTo(1);
		assertThat(this.waiting.describe("other-key")).isEqualTo("no line");
	}

	@Test
	void aHintNamingAnotherProcesssLineLeavesTheHeadToItsPoll() {
		Contender a = sleepingHead();
		this.waiting.hint(KEY, "42@anotherline");
		this.waiting.hint(KEY, "42@anotherline+");
		assertThat(a.attempts).isEqualTo(1);
		this.scheduler.advance(POLL);
		assertThat(a.attempts).isEqualTo(2);
	}

	@Test
	void aHintNamingThisLineWakesItsHeadAtOnce() {
		Contender a = sleepingHead();
		this.waiting.hint(KEY, named("42"));
		assertThat(a.attempts).isEqualTo(2);
	}

	@Test
	void aHintWhileALeaseOfThisRegistryHoldsTheKeyWakesNobody() {
		Contender a = Contender.enter("a", this.waiting, KEY, this.scheduler.nanoTime() + 60 * SECOND, this.record);
		Contender b = Contender.enter("b", this.waiting, KEY, this.scheduler.nanoTime() + 60 * SECOND, this.record);
		a.acquire();
		this.waiting.hint(KEY, "42");
		this.waiting.hint(KEY, named("43"));
		assertThat(b.attempts).isZero();
	}

	@Test
	void aHintWhileTheHeadAttemptsMakesItTryAgainAsSoonAsThatAttemptFailed() {
		Contender a = sleepingHead();
		this.waiting.hint(KEY, "42");
		this.waiting.hint(KEY, "43"); // another release while its attempt is on its way
		assertThat(a.attempts).isEqualTo(2);
		a.fail(POLL);
		assertThat(a.attempts).isEqualTo(3);
	}

	@Test
	void theSameReleaseHeardFromAnotherNodeDoesNotWakeTheHeadAgain() {
		Contender a = sleepingHead();
		this.waiting.hint(KEY, "42");
		assertThat(a.attempts).isEqualTo(2);
		this.waiting.hint(KEY, "42");
		assertThat(a.attempts).isEqualTo(2);
		// but an attempt that fails then tries again within ECHO_DELAY_NANOS, not at its
		// poll: a node may have refused it before its own deletion of that release
		a.fail(POLL);
		assertThat(a.attempts).isEqualTo(2);
		assertThat(this.scheduler.nextDueIn()).isBetween(0L, Place.ECHO_DELAY_NANOS);
		this.scheduler.advance(Place.ECHO_DELAY_NANOS);
		assertThat(a.attempts).isEqualTo(3);
	}

	@Test
	void anEchoThatComesAfterTheAttemptFailedShortensTheSleepToEchoDelayNanos() {
		Contender a = sleepingHead();
		this.waiting.hint(KEY, "42");
		a.fail(POLL);
		assertThat(this.scheduler.nextDueIn()).isEqualTo(POLL);
		this.waiting.hint(KEY, "42");
		assertThat(a.attempts).isEqualTo(2);
		this.scheduler.advance(Place.ECHO_DELAY_NANOS);
		assertThat(a.attempts).isEqualTo(3);
	}

	@Test
	void anAttemptThatFailsWithoutAnEchoSleepsUntilItsPoll() {
		Contender a = sleepingHead();
		this.waiting.hint(KEY, "42");
		a.fail(POLL);
		this.scheduler.advance(POLL - 1);
		assertThat(a.attempts).isEqualTo(2);
		this.scheduler.advance(1);
		assertThat(a.attempts).isEqualTo(3);
	}

	@Test
	void aLineNamedByAReleaseTriesOnceEveryNodesHintOfItCame() {
		this.waiting.hintNodes(3);
		Contender a = sleepingHead();
		this.waiting.hint(KEY, named("42"));
		assertThat(a.attempts).isEqualTo(1);
		this.waiting.hint(KEY, named("42"));
		assertThat(a.attempts).isEqualTo(1);
		this.waiting.hint(KEY, named("42"));
		assertThat(a.attempts).isEqualTo(2); // at once, without waiting out the grace
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void aLineNamedByAReleaseTriesAfterHintsGraceNanosWhenNotEveryNodesHintCame() {
		this.waiting.hintNodes(3);
		Contender a = sleepingHead();
		this.waiting.hint(KEY, named("42"));
		this.waiting.hint(KEY, named("42"));
		this.scheduler.advance(HintGathering.HINTS_GRACE_NANOS - 1);
		assertThat(a.attempts).isEqualTo(1);
		this.scheduler.advance(1);
		assertThat(a.attempts).isEqualTo(2);
		this.waiting.hint(KEY, named("42")); // the late node's hint: an echo
		assertThat(a.attempts).isEqualTo(2);
	}

	@Test
	void aLineStopsWaitingForANodeWhoseHintsMissedThreeTimesInARow() {
		this.waiting.hintNodes(2);
		Contender a = sleepingHead();
		for (int release = 1; release <= 3; release++) {
			this.waiting.hint(KEY, named("t" + release));
			assertThat(a.attempts).isEqualTo(release);
			this.scheduler.advance(HintGathering.HINTS_GRACE_NANOS);
			assertThat(a.attempts).isEqualTo(release + 1);
			a.fail(POLL);
		}
		this.waiting.hint(KEY, named("t4"));
		assertThat(a.attempts).isEqualTo(5); // at once: it expects one node's hint now
	}

	@Test
	void aLineNamedByAReleaseNeverWaitsForHintsPastItsDeadline() {
		this.waiting.hintNodes(3);
		Contender a = Contender.enter("a", this.waiting, KEY, this.scheduler.nanoTime() + POLL, this.record);
		a.fail(POLL);
		this.scheduler.advance(POLL - HintGathering.HINTS_GRACE_NANOS / 2);
		this.waiting.hint(KEY, named("42"));
		assertThat(this.scheduler.nextDueIn()).isEqualTo(HintGathering.HINTS_GRACE_NANOS / 2);
	}

	@Test
	void aHintNamingThisLineWithOthersQueuedBehindMakesItsNextReleaseLookAtTheQueue() {
		Contender a = sleepingHead();
		this.waiting.hint(KEY, named("42") + "+");
		assertThat(a.attempts).isEqualTo(2);
		a.acquire();
		assertThat(this.waiting.releaseArgs(KEY, "secret", 43, null)[2]).isEqualTo(this.waiting.lineId() + ",,,,1");
		// that release looked: the next one, nobody waiting, does not
		assertThat(this.waiting.releaseArgs(KEY, "secret", 43, null)[2]).isEqualTo(this.waiting.lineId() + ",,,,");
	}

	@Test
	void aHintNamingThisLineAloneLeavesItsNextReleaseIdle() {
		Contender a = sleepingHead();
		this.waiting.hint(KEY, named("42"));
		a.acquire();
		assertThat(this.waiting.releaseArgs(KEY, "secret", 43, null)[2]).isEqualTo(this.waiting.lineId() + ",,,,");
	}

}
