package io.github.redlock.embedded;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Finds the {@code redis-server} binary that node processes run: the one named by the
 * {@code REDLOCK_REDIS_SERVER} environment variable (or the {@code redlock.redis-server}
 * system property), else {@code redis-server} on the {@code PATH}, else the binary
 * shipped inside the {@code com.github.codemonstur:embedded-redis} jar, so that nothing
 * needs to be installed but a JDK.
 *
 * @author redlock contributors
 */
public final class RedisServerBinary {

	/** Environment variable that names the server binary to run. */
	public static final String ENVIRONMENT_VARIABLE = "REDLOCK_REDIS_SERVER";

	/** System property that names the server binary to run. */
	public static final String SYSTEM_PROPERTY = "redlock.redis-server";

	private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)\\.(\\d+)");

	private static volatile @Nullable RedisServerBinary resolved;

	private final Path path;

	private final String origin;

	private final String version;

	private final int majorVersion;

	private volatile @Nullable Boolean tls;

	private volatile @Nullable String tlsProbeOutput;

	private RedisServerBinary(Path path, String origin) {
		this.path = path;
		this.origin = origin;
		this.version = readVersion(path);
		Matcher matcher = VERSION.matcher(this.version);
		this.majorVersion = matcher.find() ? Integer.parseInt(matcher.group(1)) : 0;
	}

	/**
	 * Returns the binary to use, resolving it on first call.
	 * @return the binary
	 * @throws IllegalStateException if no binary can be found for this platform
	 */
	public static RedisServerBinary get() {
		RedisServerBinary binary = resolved;
		if (binary == null) {
			synchronized (RedisServerBinary.class) {
				binary = resolved;
				if (binary == null) {
					binary = resolve();
					resolved = binary;
				}
			}
		}
		return binary;
	}

	/**
	 * Returns the binary at the given path, for tests of the binary checks.
	 */
	static RedisServerBinary of(Path path, String origin) {
		return new RedisServerBinary(path, origin);
	}

	/**
	 * Returns the binary shipped inside the embedded-redis jar, extracted, whatever
	 * {@link #get()} would choose.
	 * @return the bundled binary
	 * @throws IllegalStateException if the jar ships no binary for this platform
	 */
	public static RedisServerBinary bundled() {
		return new RedisServerBinary(extractBundled(), "embedded-redis jar");
	}

	private static RedisServerBinary resolve() {
		String configured = System.getProperty(SYSTEM_PROPERTY, System.getenv(ENVIRONMENT_VARIABLE));
		if (configured != null && !configured.isBlank()) {
			Path path = Path.of(configured);
			if (!Files.isExecutable(path)) {
				Path onPath = findOnPath(configured);
				if (onPath == null) {
					throw new IllegalStateException(ENVIRONMENT_VARIABLE + "='" + configured
							+ "' is not an executable file; point it at a redis-server, valkey-server or keydb-server binary");
				}
				path = onPath;
			}
			return new RedisServerBinary(path, ENVIRONMENT_VARIABLE);
		}
		Path onPath = findOnPath("redis-server");
		if (onPath != null) {
			return new RedisServerBinary(onPath, "PATH");
		}
		return new RedisServerBinary(extractBundled(), "embedded-redis jar");
	}

	private static @Nullable Path findOnPath(String name) {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String dir : path.split(File.pathSeparator)) {
			Path candidate = Path.of(dir, name);
			if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
				return candidate;
			}
		}
		return null;
	}

	private static Path extractBundled() {
		String resource = bundledResourceName();
		Path target = Path.of(System.getProperty("java.io.tmpdir"), "redlock-" + System.getProperty("user.name"),
				resource);
		try (InputStream in = RedisServerBinary.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("No redis-server on the PATH and no '" + resource
						+ "' on the classpath: add com.github.codemonstur:embedded-redis, install redis-server, or set "
						+ ENVIRONMENT_VARIABLE);
			}
			Files.createDirectories(target.getParent());
			if (!Files.isExecutable(target)) {
				Path temp = Files.createTempFile(target.getParent(), resource, ".tmp");
				Files.copy(in, temp, StandardCopyOption.REPLACE_EXISTING);
				temp.toFile().setExecutable(true, true);
				Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
			}
			return target;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not extract " + resource + " to " + target, ex);
		}
	}

	private static String bundledResourceName() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		boolean arm = arch.contains("aarch64") || arch.contains("arm");
		if (os.contains("linux")) {
			return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
		}
		if (os.contains("mac")) {
			return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
		}
		throw new IllegalStateException("No bundled redis-server for " + os + "/" + arch
				+ ": install redis-server or set " + ENVIRONMENT_VARIABLE);
	}

	private static String readVersion(Path path) {
		try {
			Process process = new ProcessBuilder(path.toString(), "--version").redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			process.waitFor(10, TimeUnit.SECONDS);
			return output;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run " + path + " --version", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + path + " --version", ex);
		}
	}

	/**
	 * Returns whether the binary was built with TLS, so that it can run a TLS-only node.
	 * The first call finds out by starting it with a TLS port and no certificate, which a
	 * build with TLS refuses for the missing certificate ({@code No tls-cert-file
	 * configured}) and one without TLS refuses for the unknown option, both at once and
	 * without opening a port; later calls answer from memory.
	 * @return whether it supports TLS
	 */
	public boolean supportsTls() {
		Boolean supported = this.tls;
		if (supported == null) {
			synchronized (this) {
				supported = this.tls;
				if (supported == null) {
					supported = probeTls();
					this.tls = supported;
				}
			}
		}
		return supported;
	}

	private boolean probeTls() {
		Path output = null;
		Process process = null;
		try {
			output = Files.createTempFile("redlock-tls-probe-", ".log");
			process = new ProcessBuilder(this.path.toString(), "--port", "0", "--tls-port",
					String.valueOf(RedisNode.freePort()), "--bind", "127.0.0.1", "--daemonize", "no", "--save", "",
					"--appendonly", "no", "--logfile", "")
				.redirectErrorStream(true)
				.redirectOutput(output.toFile())
				.start();
			process.getOutputStream().close();
			boolean exited = process.waitFor(10, TimeUnit.SECONDS);
			String text = Files.readString(output).trim();
			this.tlsProbeOutput = exited ? text : text + " (still running after 10s)";
			return text.contains("tls-cert-file") || text.contains("Failed to configure TLS");
		}
		catch (IOException ex) {
			this.tlsProbeOutput = "could not run it: " + ex;
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while checking " + this.path + " for TLS", ex);
		}
		finally {
			if (process != null) {
				process.destroyForcibly();
			}
			if (output != null) {
				output.toFile().delete();
			}
		}
	}

	/**
	 * Throws unless the binary {@link #supportsTls() supports TLS}, saying how to get one
	 * that does.
	 */
	// supportsTls() answered no, so its probe kept what the server said
	@SuppressWarnings("NullAway")
	void requireTls() {
		if (!supportsTls()) {
			String said = this.tlsProbeOutput;
			said = (said.length() > 300) ? said.substring(said.length() - 300) : said;
			throw new IllegalStateException(
					"Cannot start a TLS node: " + this + " was built without TLS (with a TLS port it said: '" + said
							+ "'); install Debian's redis-server (apt-get install redis-server) or set "
							+ ENVIRONMENT_VARIABLE + " to a redis-server 6+ built with BUILD_TLS=yes");
		}
	}

	/**
	 * Returns the path of the binary.
	 * @return the path
	 */
	public Path path() {
		return this.path;
	}

	/**
	 * Returns where the binary was found: the environment variable, the PATH, or the
	 * embedded-redis jar.
	 * @return a short description of the origin
	 */
	public String origin() {
		return this.origin;
	}

	/**
	 * Returns what the binary printed for {@code --version}.
	 * @return the version line
	 */
	public String version() {
		return this.version;
	}

	/**
	 * Returns the major version the binary reports, or 0 if unknown.
	 * @return the major version
	 */
	public int majorVersion() {
		return this.majorVersion;
	}

	@Override
	public String toString() {
		return this.path + " (" + this.origin + ", " + this.version + ")";
	}

}
