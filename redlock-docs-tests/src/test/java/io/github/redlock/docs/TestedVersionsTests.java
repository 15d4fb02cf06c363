package io.github.redlock.docs;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.embedded.RedisServerBinary;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootVersion;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The versions README.md's requirements say this release was tested with are the ones the
 * build uses: the Spring Boot that the parent pom's BOM import puts on the classpath, and
 * the Redis bundled in the embedded-redis jar that tests start by default. The other
 * servers and Java 25 are installed by hand, outside the build; the release steps in
 * CONTRIBUTING.md say to run the suite on each.
 */
class TestedVersionsTests {

	private static final Pattern SERVER_VERSION = Pattern.compile("v=(\\d+\\.\\d+\\.\\d+)");

	@Test
	void theReadmeNamesTheSpringBootOfTheBuild() {
		String bootVersion = SpringBootVersion.getVersion();
		assertThat(testedWith()).contains("Spring Boot " + bootVersion + ";");
		assertThat(String.join(" ", Docs.lines(Path.of("docs", "kotlin.md"))))
			.contains("the versions Spring Boot " + bootVersion + " manages");
	}

	@Test
	void theReadmeNamesTheBundledRedis() {
		String version = RedisServerBinary.bundled().version();
		Matcher matcher = SERVER_VERSION.matcher(version);
		assertThat(matcher.find()).as("the version line '%s'", version).isTrue();
		assertThat(testedWith()).contains("Redis " + matcher.group(1) + " (the server bundled for tests)");
	}

	/** The README's "Tested with" item, its lines joined. */
	private static String testedWith() {
		List<String> lines = Docs.lines(Path.of("README.md"));
		StringBuilder item = null;
		for (String line : lines) {
			if (item == null && line.startsWith("- Tested with:")) {
				item = new StringBuilder(line);
			}
			else if (item != null && line.startsWith("  ")) {
				item.append(' ').append(line.trim());
			}
			else if (item != null) {
				break;
			}
		}
		assertThat(item).as("a '- Tested with:' item in README.md").isNotNull();
		return item.toString();
	}

}
