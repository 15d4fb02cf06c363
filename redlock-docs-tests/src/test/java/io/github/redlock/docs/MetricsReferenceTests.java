package io.github.redlock.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/observability.md's meter tables (those whose first column is headed "meter" or
 * "gauge") name exactly the meters the starter registers (issue 41, item 7: the table
 * lacked {@code redlock.acquisition.active} and {@code redlock.hold.active}, the long
 * task timers of the observations). With those two rows taken out of the page, this test
 * failed naming both; with a row for a meter that does not exist, it named that row.
 */
class MetricsReferenceTests {

	static final Path PAGE = Path.of("docs", "observability.md");

	private static final Pattern FIRST_CELL = Pattern.compile("^\\| `(redlock\\.[a-z0-9.]+)`");

	@Test
	void theMeterTablesNameEveryMeterTheStarterRegistersAndNoOther() throws Exception {
		Set<String> registered = StarterMeters.names();
		assertThat(registered).as("meters the starter registers").contains("redlock.leases.active");
		Set<String> documented = documented();
		List<String> problems = new ArrayList<>();
		for (String name : registered) {
			if (!documented.contains(name)) {
				problems.add(PAGE + " lacks a row for " + name + ", which the starter registers");
			}
		}
		for (String name : documented) {
			if (!registered.contains(name)) {
				problems.add(PAGE + " has a row for " + name + ", which the starter does not register");
			}
		}
		assertThat(problems).as("the meter tables and the registered meters disagree").isEmpty();
	}

	/** The first cells of the rows of every table headed "meter" or "gauge". */
	static Set<String> documented() {
		Set<String> names = new TreeSet<>();
		boolean table = false;
		for (String line : Docs.lines(PAGE)) {
			if (line.startsWith("| meter |") || line.startsWith("| gauge |")) {
				table = true;
				continue;
			}
			if (!line.startsWith("|")) {
				table = false;
				continue;
			}
			Matcher cell = FIRST_CELL.matcher(line);
			if (table && cell.find()) {
				names.add(cell.group(1));
			}
		}
		return names;
	}

}
