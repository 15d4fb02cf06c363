package io.github.redlock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The temporary directories of nodes and certificates, named after the JVM that owns
 * them, such as {@code redlock-node0-pid4242s1718000000123-86731}: the owner's process id
 * and start time (epoch milliseconds, so that a reused process id is not taken for the
 * owner). A JVM killed with {@code kill -9} runs no shutdown hook and leaves its
 * directories behind; the first node or certificates a later JVM creates sweeps every
 * directory whose owner is gone. A directory whose owner still runs is never touched,
 * whoever owns it, and nor is one that names no owner (made by an older version).
 *
 * @author redlock contributors
 */
final class NodeDirectories {

	private static final Pattern OWNED = Pattern.compile("redlock-.+-pid(\\d+)s(\\d+)-\\d+");

	private static final AtomicBoolean swept = new AtomicBoolean();

	private NodeDirectories() {
	}

	/**
	 * Creates a temporary directory owned by this JVM, sweeping stale ones first the
	 * first time this JVM creates one.
	 * @param kind what it is for, such as {@code node0} or {@code tls}
	 * @return the new directory
	 * @throws IOException if it cannot be created
	 */
	static Path create(String kind) throws IOException {
		if (swept.compareAndSet(false, true)) {
			sweep(temporaryDirectory());
		}
		ProcessHandle self = ProcessHandle.current();
		return Files
			.createTempDirectory("redlock-" + kind + "-pid" + self.pid() + "s" + startMillis(self).orElse(0L) + "-");
	}

	/**
	 * Deletes every directory under {@code parent} that names an owner that is no longer
	 * running.
	 * @param parent where to look, normally {@code java.io.tmpdir}
	 * @return the directories deleted
	 */
	static List<Path> sweep(Path parent) {
		List<Path> deleted = new ArrayList<>();
		try (DirectoryStream<Path> candidates = Files.newDirectoryStream(parent, "redlock-*")) {
			for (Path candidate : candidates) {
				Matcher matcher = OWNED.matcher(candidate.getFileName().toString());
				if (matcher.matches() && Files.isDirectory(candidate)
						&& !ownerRuns(Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2)))) {
					if (delete(candidate)) {
						deleted.add(candidate);
					}
				}
			}
		}
		catch (IOException | UncheckedIOException ex) {
			// best effort: a sweep that fails leaves what it could not read
		}
		return deleted;
	}

	private static boolean ownerRuns(long pid, long startMillis) {
		Optional<ProcessHandle> owner = ProcessHandle.of(pid);
		if (owner.isEmpty() || !owner.get().isAlive()) {
			return false;
		}
		// an unknown start time (another user's process on some systems) counts as the
		// owner: never delete what might be in use
		Optional<Long> started = startMillis(owner.get());
		return started.isEmpty() || startMillis == 0 || started.get() == startMillis;
	}

	private static Optional<Long> startMillis(ProcessHandle process) {
		return process.info().startInstant().map(Instant::toEpochMilli);
	}

	private static boolean delete(Path directory) {
		try (Stream<Path> files = Files.walk(directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException | UncheckedIOException ex) {
			return false;
		}
		return !Files.exists(directory);
	}

	static Path temporaryDirectory() {
		return Path.of(System.getProperty("java.io.tmpdir"));
	}

}
