package io.github.redlock.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.github.redlock.torture.History.Event;
import io.github.redlock.torture.TortureChecker.Report;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Judges a torture run again from its history file:
 * {@code ./mvnw -B -ntp -pl redlock-core
 * -am verify -Dtest=TortureHistoryRecheckTests -Dsurefire.failIfNoSpecifiedTests=false
 * -Dredlock.torture.history=<file>} prints the checker's report of the file and fails if
 * it finds a violation (a relative path is taken from {@code redlock-core}, where the
 * runs write {@code target/torture-history-<seed>.jsonl}). Without the property, a
 * hand-made history goes through a file and its violations are found in what is read
 * back.
 */
class TortureHistoryRecheckTests {

	/** The system property naming the history file to judge again. */
	static final String HISTORY_PROPERTY = "redlock.torture.history";

	@Test
	void aSavedHistoryIsJudgedAgain() throws Exception {
		String saved = System.getProperty(HISTORY_PROPERTY);
		assumeTrue(saved != null, "no -D" + HISTORY_PROPERTY + "=<file> given");
		Path file = Path.of(saved);
		History history = History.read(file);
		Report report = TortureChecker.check(history);
		System.out
			.println("TORTURE RECHECK " + file.toAbsolutePath() + " (" + history.tally() + ")\n" + report.summary());
		assertThat(history.events()).as("events in " + file).isNotEmpty();
		assertThat(report.byKind()).allSatisfy((kind, found) -> assertThat(found).as(kind).isEmpty());
	}

	@Test
	void aHistoryIsJudgedFromItsFile(@TempDir Path directory) throws Exception {
		List<Event> events = new ArrayList<>();
		// two holders of k0 at once, and the store accepting the older token after the
		// newer one
		section(events, "c0", "k0", "c0-1", 10, 100, 300, 1100);
		section(events, "c1", "k0", "c1-1", 11, 250, 400, 1250);
		events.add(Event.of("store")
			.with("key", "k0")
			.with("op", "op1")
			.with("token", 11)
			.with("accepted", 1)
			.with("section", "c1-1"));
		events.add(Event.of("store")
			.with("key", "k0")
			.with("op", "op2")
			.with("token", 10)
			.with("accepted", 1)
			.with("section", "c0-1"));
		// a holder that never said its section ended holds until its validity did
		section(events, "c2", "k1", "c2-1", 20, 100, -1, 600);
		section(events, "c3", "k1", "c3-1", 21, 500, 700, 1500);
		// refused, and a worker that threw something hard to write down
		events.add(invoke("c3", "k2", "c3-2", 100));
		events.add(invoke("c3", "k2", "c3-2", 0).as("fail").with("reason", "refused").at(millis(2100)));
		events.add(Event.of("error")
			.with("client", "c1")
			.with("key", "k2")
			.with("thread", "torture-c1-0")
			.with("message", "java.lang.IllegalStateException: \"quoted\", back\\slash,\nnew line\tand \u0001")
			.at(millis(2200)));
		History history = new History(events);
		Path file = directory.resolve("torture-history.jsonl");
		history.write(file);
		assertThat(Files.readAllLines(file)).hasSize(events.size())
			.first()
			.asString()
			.startsWith("{\"type\":\"invoke\",\"client\":\"c0\",\"key\":\"k0\"");
		History read = History.read(file);
		assertThat(read).isEqualTo(history);
		Report report = TortureChecker.check(read);
		assertThat(report.overlaps).hasSize(2)
			.anySatisfy((found) -> assertThat(found).contains("k0: token 11 began 50000us before token 10"))
			.anySatisfy((found) -> assertThat(found).contains("k1: token 21 began 100000us before token 20"));
		assertThat(report.fencingViolations).singleElement()
			.asString()
			.isEqualTo("k0: accepted token 10 of section c0-1 after the store saw token 11");
		assertThat(report.workerErrors).singleElement().asString().endsWith("new line\tand \u0001");
		assertThat(report.violations()).isEqualTo(4);
	}

	/**
	 * Records a section as a client does, on the torture's monotonic clock in ms: asked
	 * 10 ms before it held, and ended at {@code end} ({@code -1}: never said so).
	 */
	private static void section(List<Event> events, String client, String key, String section, long token, long start,
			long end, long validUntil) {
		events.add(invoke(client, key, section, start - 10));
		Event held = invoke(client, key, section, start).with("token", token);
		events.add(held.as("ok").with("validUntil", millis(validUntil)));
		if (end >= 0) {
			events.add(held.as((end > validUntil) ? "lost" : "release")
				.at(millis(end))
				.with("validUntil", millis(validUntil)));
		}
	}

	private static Event invoke(String client, String key, String section, long at) {
		return Event.of("invoke")
			.with("client", client)
			.with("key", key)
			.with("mode", "X")
			.with("section", section)
			.at(millis(at));
	}

	private static long millis(long millis) {
		return millis * 1_000_000;
	}

}
