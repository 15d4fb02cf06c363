package io.github.redlock.benchmarks;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The line protocol between the two JVMs.
 */
class LinkTests {

	@Test
	void eventsUpdateTheViewOfTheOtherSideAndOtherMessagesReachTheCaller() throws Exception {
		Link link = link("waiting\nheld\nheld\nhold 1 2 3 4\nclock 5\nstop\n");
		assertThat(link.read()).containsExactly("clock", "5");
		assertThat(link.waiting()).isEqualTo(1);
		assertThat(link.held()).isEqualTo(2);
		assertThat(link.holds()).singleElement().isEqualTo(new long[] { 1, 2, 3, 4 });
		assertThat(link.stopped()).isFalse();
		assertThat(link.read()).isNull();
		assertThat(link.stopped()).isTrue();
	}

	@Test
	void resetForgetsThePreviousRun() throws Exception {
		Link link = link("waiting\nheld\nhold 0 1 2 3\nstop\ndone 1\n");
		link.read();
		link.reset();
		assertThat(link.waiting()).isZero();
		assertThat(link.held()).isZero();
		assertThat(link.holds()).isEmpty();
		assertThat(link.stopped()).isFalse();
	}

	@Test
	void aMessageIsOneLineOfWords() {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		Link link = new Link(new ByteArrayInputStream(new byte[0]), out);
		link.send("onekey", 1, "bench:key", 4);
		link.send("failed", "two\nlines");
		assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("onekey 1 bench:key 4\nfailed two lines\n");
	}

	@Test
	void waitingForTheOtherSideFailsAtOnceWhenItIsGone() throws Exception {
		Link link = link("");
		assertThat(link.read()).isNull();
		assertThatIllegalStateException().isThrownBy(() -> link.await(() -> false))
			.withMessageContaining("The other JVM is gone");
	}

	@Test
	void waitingForTheOtherSideFailsAtOnceWhenItFailed() throws Exception {
		Link link = link("failed java.lang.IllegalStateException: no quorum\n");
		assertThat(link.read()).containsExactly("failed", "java.lang.IllegalStateException: no quorum");
		assertThatIllegalStateException().isThrownBy(() -> link.await(() -> false))
			.withMessageContaining("The other JVM failed: java.lang.IllegalStateException: no quorum");
	}

	private static Link link(String input) {
		return new Link(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), new ByteArrayOutputStream());
	}

}
