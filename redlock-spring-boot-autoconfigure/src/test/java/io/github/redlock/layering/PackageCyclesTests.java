package io.github.redlock.layering;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No package of this module's main sources depends, directly or through others, on a
 * package that depends on it (issue 25, item 13): {@code aop} (the interceptor) must not
 * use {@code autoconfigure}, which wires it. Read from the sources with plain Java, every
 * reference to a project type counted (imports, fully qualified names, javadoc links), so
 * that it needs no ArchUnit.
 * <p>
 * Failed before the fix: "io.github.redlock.aop -> io.github.redlock.autoconfigure ->
 * io.github.redlock.aop" (MethodLocks, DistributedLockInterceptor and LockOperationSource
 * used RedlockProperties and InvalidRedlockConfigurationException).
 */
class PackageCyclesTests {

	private static final Path MAIN = Path.of("src", "main", "java");

	/** A project type named with its package: lower-case segments, then a capital. */
	private static final Pattern REFERENCE = Pattern
		.compile("\\bio\\.github\\.redlock((?:\\.[a-z][a-z0-9]*)*)\\.[A-Z]");

	@Test
	void mainPackagesHaveNoCycle() throws IOException {
		Map<String, Set<String>> uses = dependencies(MAIN);
		assertThat(uses).containsKeys("io.github.redlock.aop", "io.github.redlock.autoconfigure");
		assertThat(cycles(uses)).isEmpty();
	}

	@Test
	void theCheckFindsACycle() {
		// the checker can fail: a made-up graph with the cycle this module had
		Map<String, Set<String>> uses = new TreeMap<>();
		uses.put("a.aop", Set.of("a.autoconfigure", "a.core"));
		uses.put("a.autoconfigure", Set.of("a.aop", "a.core"));
		uses.put("a.core", Set.of());
		assertThat(cycles(uses)).containsExactly("a.aop -> a.autoconfigure -> a.aop");
	}

	/**
	 * Returns, for each package of the sources, the other project packages it names.
	 */
	static Map<String, Set<String>> dependencies(Path root) throws IOException {
		Map<String, Set<String>> uses = new TreeMap<>();
		List<Path> sources;
		try (Stream<Path> files = Files.walk(root)) {
			sources = files.filter((file) -> file.toString().endsWith(".java")).toList();
		}
		for (Path source : sources) {
			String from = root.relativize(source.getParent())
				.toString()
				.replace(source.getFileSystem().getSeparator(), ".");
			Set<String> used = uses.computeIfAbsent(from, (name) -> new TreeSet<>());
			for (String line : Files.readAllLines(source)) {
				if (line.startsWith("package ")) {
					continue;
				}
				Matcher reference = REFERENCE.matcher(line);
				while (reference.find()) {
					String to = "io.github.redlock" + reference.group(1);
					if (!to.equals(from)) {
						used.add(to);
					}
				}
			}
		}
		return uses;
	}

	/**
	 * Returns each cycle found by a depth-first walk, as {@code a -> b -> a}.
	 */
	static List<String> cycles(Map<String, Set<String>> uses) {
		List<String> found = new ArrayList<>();
		Set<String> done = new TreeSet<>();
		for (String start : uses.keySet()) {
			walk(start, uses, new ArrayList<>(), done, found);
		}
		return found;
	}

	private static void walk(String node, Map<String, Set<String>> uses, List<String> path, Set<String> done,
			List<String> found) {
		int at = path.indexOf(node);
		if (at >= 0) {
			List<String> cycle = new ArrayList<>(path.subList(at, path.size()));
			cycle.add(node);
			found.add(String.join(" -> ", cycle));
			return;
		}
		if (done.contains(node)) {
			return;
		}
		path.add(node);
		for (String next : uses.getOrDefault(node, Set.of())) {
			walk(next, uses, path, done, found);
		}
		path.remove(path.size() - 1);
		done.add(node);
	}

}
