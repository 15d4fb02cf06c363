package io.github.redlock.engine.waiting;

import java.util.List;

import io.github.redlock.engine.waiting.WaitingLine.Phase;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link WaitingLine} reads every field of {@link Waiting#describe(String)}'s line, and
 * refuses a line it does not recognise rather than guess.
 */
class WaitingLineSnapshotTests {

	@Test
	void aLineIsReadIntoItsFields() {
		WaitingLine line = WaitingLine
			.parse("waiters [2,0,1] (0 queued, 1 attempting, 2 sleeping), holders 3, own permits 1, hinted true");
		assertThat(line)
			.isEqualTo(new WaitingLine(true, List.of(Phase.SLEEPING, Phase.QUEUED, Phase.ATTEMPTING), 3, 1, true));
		assertThat(line.waitersAre(Phase.SLEEPING, Phase.QUEUED, Phase.ATTEMPTING)).isTrue();
		assertThat(line.waitersAre(Phase.SLEEPING)).isFalse();
	}

	@Test
	void aLineWithoutWaitersHasNone() {
		assertThat(WaitingLine
			.parse("waiters [] (0 queued, 1 attempting, 2 sleeping), holders 0, own permits 0, hinted false"))
			.isEqualTo(new WaitingLine(true, List.of(), 0, 0, false));
	}

	@Test
	void aKeyWithoutALineIsNone() {
		assertThat(WaitingLine.parse("no line")).isEqualTo(WaitingLine.NONE).returns(false, WaitingLine::exists);
	}

	@Test
	void unrecognisedTextIsRefused() {
		assertThatIllegalStateException().isThrownBy(() -> WaitingLine.parse("waiters [2], hinted true"))
			.withMessageContaining("Unrecognised");
	}

	@Test
	void changedPhaseCodesAreRefused() {
		assertThatIllegalStateException()
			.isThrownBy(() -> WaitingLine
				.parse("waiters [1] (1 queued, 0 attempting, 2 sleeping), holders 0, own permits 0, hinted false"))
			.withMessageContaining("QUEUED is coded 1");
	}

}
