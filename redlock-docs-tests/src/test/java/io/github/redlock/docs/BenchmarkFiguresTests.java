package io.github.redlock.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every figure on docs/benchmarks.md follows, in its own "## " section, a code block
 * holding the command that prints it (issue 41, item 7: "2,674 acquisitions/s" had no run
 * behind it). A figure is a table row with a digit in it, or a line of prose with a
 * measured rate or time ("2,852 cycles/s", "480 µs", "3.72 ms"). With the command block
 * of the "Issue 35" section taken out, this test failed naming that section's tables.
 */
class BenchmarkFiguresTests {

	static final Path PAGE = Path.of("docs", "benchmarks.md");

	/** A rate or a time as the harnesses print them. */
	private static final Pattern MEASURED = Pattern.compile("\\d[\\d,.]*\\s?(µs|[a-z]+/s\\b)");

	/** A command that runs a benchmark. */
	private static final Pattern COMMAND = Pattern.compile("^\\s*\\./mvnw .*-D(benchmarks|test=\\w*Benchmark)");

	@Test
	void everyFigureFollowsTheCommandThatPrintsIt() {
		List<String> lines = Docs.lines(PAGE);
		List<String> problems = new ArrayList<>();
		String section = null;
		boolean command = false;
		boolean code = false;
		int figures = 0;
		for (int i = 0; i < lines.size(); i++) {
			String line = lines.get(i);
			if (line.trim().startsWith("```")) {
				code = !code;
				continue;
			}
			if (code) {
				command |= COMMAND.matcher(line).find();
				continue;
			}
			if (line.startsWith("## ")) {
				section = line;
				command = false;
				continue;
			}
			boolean figure = (line.startsWith("|") && line.matches(".*\\d.*") && !line.startsWith("|---"))
					|| MEASURED.matcher(line.replaceAll("`[^`]*`", "")).find();
			if (figure) {
				figures++;
				if (section == null || !command) {
					problems.add(PAGE + ":" + (i + 1) + " gives a figure with no command before it in its section ("
							+ section + "): put the ./mvnw command that prints it in a code block above it\n    "
							+ line);
				}
			}
		}
		assertThat(figures).as("figures on " + PAGE).isGreaterThan(20);
		assertThat(problems).as("figures without the command that prints them").isEmpty();
	}

}
