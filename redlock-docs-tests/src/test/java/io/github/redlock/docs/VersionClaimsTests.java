package io.github.redlock.docs;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The versions and counts the docs state come from the build, not from prose (issue 41,
 * item 7: "about 620 tests" after the suite had grown to 647, "tested on 17 and 25" when
 * only the virtual-thread tests run on 25, a {@code git checkout v0.1.0} of a tag that
 * does not exist). Each version the README's requirements, its {@code pom.xml} and Gradle
 * examples and docs/kotlin.md name is checked against the root {@code pom.xml}, the jars
 * on this module's class path or the Spring Boot BOM the build imports; and no page
 * states a number of tests, which the build prints. Each check was seen failing on a page
 * changed to break it: Spring Boot 4.1.0 for 4.1.1 in the requirements, Lettuce 6, the
 * BOM's version 0.1.0 in the README's pom, "about 620 tests".
 */
class VersionClaimsTests {

	private static final Path README = Path.of("README.md");

	private static final Path KOTLIN = Path.of("docs", "kotlin.md");

	private static final Pattern TEST_COUNT = Pattern.compile("\\b\\d[\\d,]*\\+? (?:\\w+ )?tests\\b");

	@Test
	void theRequirementsNameTheVersionsTheBuildUses() {
		String readme = String.join("\n", Docs.lines(README));
		List<String> problems = new ArrayList<>();
		expect(problems, readme, "Java (\\d+) or later", property("maven.compiler.release"), "Java");
		expect(problems, readme, "Tested with: Spring Boot ([\\d.]+);", property("spring-boot.version"), "Spring Boot");
		expectPrefix(problems, readme, "Spring Framework ([\\d.]+), Lettuce", jar("spring-core"), "Spring Framework");
		expectPrefix(problems, readme, "Lettuce (\\d+)\\)", jar("lettuce-core"), "Lettuce");
		expectPrefix(problems, readme, "ShedLock ([\\d.]+) \\(", property("shedlock.version"), "ShedLock");
		expectPrefix(problems, readme, "Spring Integration ([\\d.]+) \\(", jar("spring-integration-core"),
				"Spring Integration");
		expect(problems, readme, "tested with Kotlin ([\\d.]+)", property("kotlin.version"), "Kotlin");
		expect(problems, readme, "kotlinx-coroutines ([\\d.]+)\\)", bomProperty("kotlin-coroutines.version"),
				"kotlinx-coroutines");
		String kotlin = String.join("\n", Docs.lines(KOTLIN));
		expect(problems, kotlin, "Tested with Kotlin ([\\d.]+)", property("kotlin.version"), "Kotlin");
		expect(problems, kotlin, "kotlinx-coroutines ([\\d.]+),", bomProperty("kotlin-coroutines.version"),
				"kotlinx-coroutines");
		expect(problems, kotlin, "the versions Spring Boot ([\\d.]+)", property("spring-boot.version"), "Spring Boot");
		assertThat(problems).as("versions the docs name that the build does not use").isEmpty();
	}

	@Test
	void theReadmesBuildFilesUseTheVersionsOfTheBuild() {
		String readme = String.join("\n", Docs.lines(README));
		List<String> problems = new ArrayList<>();
		String project = projectVersion();
		expect(problems, readme, "<artifactId>spring-boot-starter-parent</artifactId>\\s*<version>([^<]+)</version>",
				property("spring-boot.version"), "the pom.xml's Spring Boot parent");
		expect(problems, readme, "<artifactId>redlock-bom</artifactId>\\s*<version>([^<]+)</version>", project,
				"the pom.xml's redlock-bom");
		expect(problems, readme, "io\\.github\\.redlock:redlock-bom:([^\"]+)\"", project, "the Gradle redlock-bom");
		Matcher checkout = Pattern.compile("git checkout (v[\\w.-]+)").matcher(readme);
		if (checkout.find()) {
			problems.add(README + " checks out " + checkout.group(1) + ": no release is tagged while the build's"
					+ " version is " + project);
		}
		assertThat(problems).as("versions the README's build files name").isEmpty();
	}

	@Test
	void noPageStatesANumberOfTests() {
		List<String> problems = new ArrayList<>();
		for (Path file : Docs.markdownFiles()) {
			List<String> lines = Docs.lines(file);
			for (int i = 0; i < lines.size(); i++) {
				Matcher count = TEST_COUNT.matcher(lines.get(i));
				if (count.find()) {
					problems.add(file + ":" + (i + 1) + " says \"" + count.group() + "\": the count changes with every"
							+ " test added, and the build prints it; say what runs instead");
				}
			}
		}
		assertThat(problems).as("test counts in the docs").isEmpty();
	}

	private static void expect(List<String> problems, String text, String regex, String actual, String what) {
		Matcher claim = Pattern.compile(regex).matcher(text);
		if (!claim.find()) {
			problems.add("no claim matching \"" + regex + "\" (" + what + "): the check no longer reads the page");
		}
		else if (!claim.group(1).equals(actual)) {
			problems.add(what + ": the docs say " + claim.group(1) + ", the build uses " + actual);
		}
	}

	private static void expectPrefix(List<String> problems, String text, String regex, String actual, String what) {
		Matcher claim = Pattern.compile(regex).matcher(text);
		if (!claim.find()) {
			problems.add("no claim matching \"" + regex + "\" (" + what + "): the check no longer reads the page");
		}
		else if (!(actual + ".").startsWith(claim.group(1) + ".")) {
			problems.add(what + ": the docs say " + claim.group(1) + ", the build uses " + actual);
		}
	}

	/** The version of the project, from the root pom's own {@code <version>}. */
	static String projectVersion() {
		Matcher version = Pattern.compile("<artifactId>redlock-parent</artifactId>\\s*<version>([^<]+)</version>")
			.matcher(read(Docs.root().resolve("pom.xml")));
		assertThat(version.find()).as("the root pom's version").isTrue();
		return version.group(1);
	}

	/** A property of the root pom. */
	static String property(String name) {
		return tag(read(Docs.root().resolve("pom.xml")), name, "the root pom.xml");
	}

	/** A property of the Spring Boot BOM the build imports, from the local repository. */
	static String bomProperty(String name) {
		Path bootJar = classPathJar("spring-boot");
		// <repository>/org/springframework/boot/spring-boot/<version>/spring-boot-<version>.jar
		Path repository = bootJar.getParent().getParent().getParent().getParent().getParent().getParent();
		String boot = jar("spring-boot");
		Path bom = repository.resolve(Path.of("org", "springframework", "boot", "spring-boot-dependencies", boot,
				"spring-boot-dependencies-" + boot + ".pom"));
		return tag(read(bom), name, bom.toString());
	}

	/** The version of a jar on this module's test class path. */
	static String jar(String artifact) {
		String file = classPathJar(artifact).getFileName().toString();
		return file.substring(artifact.length() + 1, file.length() - ".jar".length());
	}

	private static Path classPathJar(String artifact) {
		Pattern name = Pattern.compile(Pattern.quote(artifact) + "-\\d[\\w.-]*\\.jar");
		for (String entry : System.getProperty("docs.snippet.classpath", "").split(File.pathSeparator)) {
			Path path = Path.of(entry);
			if (path.getFileName() != null && name.matcher(path.getFileName().toString()).matches()) {
				return path;
			}
		}
		throw new AssertionError(artifact + " is not on the class path (docs.snippet.classpath)");
	}

	private static String tag(String xml, String name, String where) {
		Matcher value = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</" + Pattern.quote(name) + ">")
			.matcher(xml);
		assertThat(value.find()).as(name + " in " + where).isTrue();
		return value.group(1).trim();
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new AssertionError("cannot read " + file, ex);
		}
	}

}
