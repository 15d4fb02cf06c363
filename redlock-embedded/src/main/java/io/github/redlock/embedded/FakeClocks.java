package io.github.redlock.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * Clock faults for nodes, through libfaketime (Debian's {@code faketime} package): a node
 * started {@link RedisFleet#startWithFakeClocks(int) with a fake clock} runs with the
 * library preloaded and reads its wall clock's offset from a file of its own at every
 * call, so that {@link RedisNode#clockOffset(java.time.Duration)} moves the running
 * server's clock at once, as a clock stepped by an operator or a broken NTP would; keys
 * expire by the moved clock. The monotonic clock is left alone, as a real step leaves it.
 * <p>
 * The library is the one the {@value #LIBRARY_VARIABLE} environment variable names, else
 * the first found where Debian, Ubuntu and a source build put it. Not every server starts
 * under it: Debian's redis-server 7.0 (built with jemalloc) stops at start-up with
 * "Unexpected recursive calls to clock_gettime()". Nodes with a fake clock therefore run
 * the {@link RedisServerBinary#get() usual binary} if it starts under the library, else
 * the one inside the embedded-redis jar (Redis 6.2, libc malloc), which does.
 *
 * @author redlock contributors
 */
public final class FakeClocks {

	/** Environment variable that names the libfaketime library to preload. */
	public static final String LIBRARY_VARIABLE = "REDLOCK_LIBFAKETIME";

	/**
	 * Environment variable that, set to {@code true}, makes tests of clock faults fail
	 * rather than skip where nodes cannot run with a fake clock: CI sets it, so that
	 * clock faults are never skipped there unseen.
	 */
	public static final String REQUIRED_VARIABLE = "REDLOCK_REQUIRE_FAKETIME";

	private static final List<String> KNOWN_PLACES = List.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
			"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1",
			"/usr/local/lib/faketime/libfaketime.so.1");

	private static volatile @Nullable Support support;

	private FakeClocks() {
	}

	/**
	 * Returns whether nodes can run with a fake clock here: libfaketime is installed and
	 * a server binary starts under it.
	 * @return whether clock faults are possible
	 */
	public static boolean available() {
		return support().binary() != null;
	}

	/**
	 * Returns why nodes cannot run with a fake clock here, for a test's skip message.
	 * @return the reason, or empty when they can
	 */
	public static Optional<String> unavailableReason() {
		return Optional.ofNullable(support().reason());
	}

	/**
	 * Returns whether clock faults must run here ({@value #REQUIRED_VARIABLE} is
	 * {@code true}).
	 * @return whether a test of clock faults must fail rather than skip when they are not
	 * {@link #available()}
	 */
	public static boolean required() {
		return Boolean.parseBoolean(System.getenv(REQUIRED_VARIABLE));
	}

	/**
	 * For a test of clock faults: returns if nodes can run with a fake clock here, else
	 * skips the test (a JUnit assumption), printing why to its output, or fails it if
	 * {@link #required()}.
	 * @throws AssertionError if clock faults are required and not available
	 */
	public static void assumeAvailable() {
		Optional<String> reason = unavailableReason();
		if (reason.isPresent()) {
			if (required()) {
				throw new AssertionError(
						REQUIRED_VARIABLE + " is set, but nodes cannot run with a fake clock: " + reason.get());
			}
			System.out.println("SKIPPED clock faults: " + reason.get());
			Assumptions.abort("clock faults need libfaketime: " + reason.get());
		}
	}

	/**
	 * Returns the binary that nodes with a fake clock run.
	 * @return the binary
	 * @throws IllegalStateException if none can: see {@link #unavailableReason()}
	 */
	public static RedisServerBinary binary() {
		Support found = support();
		RedisServerBinary binary = found.binary();
		if (binary == null) {
			throw new IllegalStateException("Nodes cannot run with a fake clock here: " + found.reason());
		}
		return binary;
	}

	/**
	 * Returns the libfaketime library nodes run with.
	 * @throws IllegalStateException if it is not installed: see
	 * {@link #unavailableReason()}
	 */
	static Path library() {
		Support found = support();
		Path library = found.library();
		if (library == null) {
			throw new IllegalStateException("Nodes cannot run with a fake clock here: " + found.reason());
		}
		return library;
	}

	/**
	 * Returns the environment that makes a process read its wall clock's offset from
	 * {@code offsetFile}.
	 */
	static Map<String, String> environment(Path offsetFile) {
		return environment(library(), offsetFile);
	}

	private static Map<String, String> environment(Path library, Path offsetFile) {
		return Map.of("LD_PRELOAD", library.toString(), "FAKETIME_TIMESTAMP_FILE", offsetFile.toString(),
				"FAKETIME_NO_CACHE", "1", "FAKETIME_DONT_FAKE_MONOTONIC", "1");
	}

	private static Support support() {
		Support found = support;
		if (found == null) {
			synchronized (FakeClocks.class) {
				found = support;
				if (found == null) {
					found = find();
					support = found;
				}
			}
		}
		return found;
	}

	private static Support find() {
		Path library = findLibrary();
		if (library == null) {
			String named = System.getenv(LIBRARY_VARIABLE);
			return new Support(null, null,
					"libfaketime not found ("
							+ ((named != null) ? LIBRARY_VARIABLE + "='" + named + "' is not a file"
									: "looked in " + String.join(", ", KNOWN_PLACES))
							+ "); install it with 'apt-get install faketime' or set " + LIBRARY_VARIABLE);
		}
		RedisServerBinary usual = RedisServerBinary.get();
		String usualSaid = probe(usual, library);
		if (usualSaid == null) {
			return new Support(library, usual, null);
		}
		RedisServerBinary bundled = RedisServerBinary.bundled();
		String bundledSaid = probe(bundled, library);
		if (bundledSaid == null) {
			return new Support(library, bundled, null);
		}
		return new Support(library, null, "neither " + usual + " (" + usualSaid + ") nor " + bundled + " ("
				+ bundledSaid + ") starts under " + library);
	}

	private static @Nullable Path findLibrary() {
		String named = System.getenv(LIBRARY_VARIABLE);
		if (named != null && !named.isBlank()) {
			Path path = Path.of(named);
			return Files.isRegularFile(path) ? path : null;
		}
		return KNOWN_PLACES.stream().map(Path::of).filter(Files::isRegularFile).findFirst().orElse(null);
	}

	/**
	 * Starts the binary under the library with no port, which a server that starts
	 * refuses at once, after its allocator and clock are up ("Configured to not listen
	 * anywhere"); returns {@code null} if it did, else what went wrong. A server the
	 * library breaks says so and hangs: the probe stops at its first words.
	 */
	private static @Nullable String probe(RedisServerBinary binary, Path library) {
		Process process = null;
		Path offset = null;
		Path output = null;
		try {
			offset = Files.createTempFile("redlock-clock-probe-", ".offset");
			output = Files.createTempFile("redlock-clock-probe-", ".log");
			Files.writeString(offset, "+0");
			ProcessBuilder builder = new ProcessBuilder(binary.path().toString(), "--port", "0", "--save", "",
					"--appendonly", "no", "--logfile", "")
				.redirectErrorStream(true)
				.redirectOutput(output.toFile());
			builder.environment().putAll(environment(library, offset));
			process = builder.start();
			process.getOutputStream().close();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			String said = "";
			while (System.nanoTime() < deadline) {
				said = Files.readString(output, StandardCharsets.UTF_8);
				if (said.contains("not listen anywhere")) {
					return null;
				}
				if (said.contains("libfaketime") || !process.isAlive()) {
					break;
				}
				Thread.sleep(20);
			}
			said = Files.readString(output, StandardCharsets.UTF_8).strip();
			return "it said: " + ((said.length() > 200) ? said.substring(said.length() - 200) : said);
		}
		catch (IOException ex) {
			return "could not run it: " + ex;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while trying " + binary + " under " + library, ex);
		}
		finally {
			if (process != null) {
				process.destroyForcibly();
			}
			for (Path file : new Path[] { offset, output }) {
				if (file != null) {
					file.toFile().delete();
				}
			}
		}
	}

	private record Support(@Nullable Path library, @Nullable RedisServerBinary binary, @Nullable String reason) {

	}

}
