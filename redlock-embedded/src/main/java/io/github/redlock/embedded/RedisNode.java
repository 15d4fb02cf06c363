package io.github.redlock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

import javax.net.ssl.SSLContext;

/**
 * One real {@code redis-server} process on a free loopback port, with the faults a test
 * needs: {@link #kill() kill}, {@link #pause() pause} (SIGSTOP), {@link #resume() resume}
 * (SIGCONT), {@link #restart(boolean) restart} with or without its data,
 * {@link #slow(Duration) slow}, and, for a node started with a fake clock
 * ({@link FakeClocks}), {@link #clockOffset(Duration) clock steps}.
 * <p>
 * The server runs under a small shell supervisor that holds a pipe from this JVM: when
 * the JVM dies, even by {@code kill -9}, the pipe closes and the supervisor kills the
 * server, so no node outlives the JVM that started it.
 * <p>
 * A node started by {@link #startTls(String, Tls)} listens only on TLS, with
 * {@link TestCertificates}: it has no plain-text port, and its {@link #uri()} is a
 * {@code rediss://} one. Every control works on it as on a plain node: the node's own
 * connections (for {@link #call(String...)}, the start-up check and the faults) use TLS
 * and present the client certificate.
 * <p>
 * One piece, longer than most: every fault (kill, pause, restart, slow, TLS) acts on the
 * same supervised process and its state, which the clean-up must always see whole.
 *
 * @author redlock contributors
 */
public final class RedisNode implements AutoCloseable {

	private static final Set<RedisNode> LIVE = ConcurrentHashMap.newKeySet();

	private static final Duration START_TIMEOUT = Duration.ofSeconds(15);

	/** Where {@link #snapshot()} keeps its copy, beside the server's own dump. */
	private static final String SNAPSHOT = "snapshot.rdb";

	/** The wall clock offset libfaketime reads, for a node with a fake clock. */
	private static final String CLOCK_OFFSET = "clock-offset";

	// Starts the server in the background, prints its pid, and kills it when stdin
	// closes.
	private static final String SUPERVISOR = String.join("\n", "exec 3<&0",
			"\"$0\" \"$@\" </dev/null >>\"$REDLOCK_NODE_OUT\" 2>&1 &", "pid=$!", "echo $pid",
			"( cat <&3 >/dev/null; kill -9 $pid ) >/dev/null 2>&1 &", "exec 3<&-", "wait $pid");

	/**
	 * Nodes whose owner stops them in a shutdown hook of its own: the reaper, which runs
	 * at the same time as every other hook, leaves them alone.
	 */
	private static final Set<RedisNode> LEFT_TO_OWNER = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(
					() -> LIVE.stream().filter((node) -> !LEFT_TO_OWNER.contains(node)).forEach(RedisNode::close),
					"redlock-node-reaper"));
	}

	private final String name;

	private final RedisServerBinary binary;

	private final Path directory;

	private final @Nullable Tls tls;

	private final @Nullable SSLContext clientContext;

	private final Function<Path, List<String>> options;

	private final IntSupplier ports;

	private final boolean fakeClock;

	private volatile Duration clockOffset = Duration.ZERO;

	private volatile @Nullable Duration clockOffsetFromNextStart;

	private volatile int port;

	private volatile @Nullable Process supervisor;

	private volatile long pid;

	private volatile boolean paused;

	private volatile @Nullable Thread slowdown;

	private volatile boolean closed;

	RedisNode(String name, RedisServerBinary binary) {
		this(name, binary, null);
	}

	RedisNode(String name, RedisServerBinary binary, @Nullable Tls tls) {
		this(name, binary, tls, (directory) -> List.of(), RedisNode::freePort);
	}

	/**
	 * Creates a node whose server gets more options than a plain one.
	 * @param options the extra command-line options, given the node's directory
	 * @param ports finds the port of the first start, and of each retry of it
	 */
	RedisNode(String name, RedisServerBinary binary, @Nullable Tls tls, Function<Path, List<String>> options,
			IntSupplier ports) {
		this(name, binary, tls, options, ports, false);
	}

	/**
	 * Creates a node that may run with a fake clock ({@link FakeClocks}).
	 * @param fakeClock whether its server runs under libfaketime, its clock moved by
	 * {@link #clockOffset(Duration)}
	 */
	RedisNode(String name, RedisServerBinary binary, @Nullable Tls tls, Function<Path, List<String>> options,
			IntSupplier ports, boolean fakeClock) {
		if (tls != null) {
			binary.requireTls();
		}
		this.name = name;
		this.binary = binary;
		this.tls = tls;
		this.clientContext = (tls != null) ? tls.certificates().sslContext(true) : null;
		this.options = options;
		this.ports = ports;
		this.fakeClock = fakeClock;
		try {
			this.directory = NodeDirectories.create(name);
			if (fakeClock) {
				writeClockOffset(Duration.ZERO);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a directory for node " + name, ex);
		}
	}

	/**
	 * Starts one node on a free loopback port.
	 * @param name a name for logs and the data directory
	 * @return the running node
	 */
	public static RedisNode start(String name) {
		return start(new RedisNode(name, RedisServerBinary.get()));
	}

	/**
	 * Starts one node on a free loopback port whose server gets more command-line
	 * options, such as {@code --rename-command EVALSHA ""}.
	 * @param name a name for logs and the data directory
	 * @param serverOptions the options, each word an element
	 * @return the running node
	 */
	public static RedisNode start(String name, String... serverOptions) {
		List<String> options = List.of(serverOptions);
		return start(new RedisNode(name, RedisServerBinary.get(), null, (directory) -> options, RedisNode::freePort));
	}

	/**
	 * Starts one node that listens only on TLS, on a free loopback port, presenting the
	 * {@link TestCertificates#serverCertificate() server certificate for localhost}.
	 * @param name a name for logs and the data directory
	 * @param certificates the certificates it uses
	 * @param requireClientCertificate whether it refuses clients that do not present a
	 * certificate signed by the CA ({@code tls-auth-clients yes})
	 * @return the running node
	 * @throws IllegalStateException if the {@code redis-server} binary was built without
	 * TLS
	 */
	public static RedisNode startTls(String name, TestCertificates certificates, boolean requireClientCertificate) {
		return startTls(name, new Tls(certificates, requireClientCertificate, ServerCertificate.LOCALHOST));
	}

	/**
	 * Starts one node that listens only on TLS, on a free loopback port.
	 * @param name a name for logs and the data directory
	 * @param tls how it uses TLS
	 * @return the running node
	 * @throws IllegalStateException if the {@code redis-server} binary was built without
	 * TLS
	 */
	public static RedisNode startTls(String name, Tls tls) {
		return start(new RedisNode(name, RedisServerBinary.get(), Objects.requireNonNull(tls, "tls")));
	}

	private static RedisNode start(RedisNode node) {
		try {
			node.start();
		}
		catch (RuntimeException ex) {
			node.close();
			throw ex;
		}
		return node;
	}

	/**
	 * Starts the server if it is not running: on a new free port the first time, on the
	 * same port afterwards, loading the data saved by a previous graceful
	 * {@link #restart(boolean) restart}, if any.
	 */
	public synchronized void start() {
		if (this.closed) {
			throw new IllegalStateException("Node " + this.name + " is closed");
		}
		if (isRunning()) {
			return;
		}
		IllegalStateException failure = null;
		for (int attempt = 0; attempt < 5; attempt++) {
			int candidate = (this.port != 0) ? this.port : this.ports.getAsInt();
			try {
				launch(candidate);
				this.port = candidate;
				LIVE.add(this);
				return;
			}
			catch (IllegalStateException ex) {
				failure = ex;
				sleep(Duration.ofMillis(100L * (attempt + 1)));
			}
		}
		throw failure;
	}

	@SuppressWarnings("NullAway") // INFO always answers with a bulk string
	private void launch(int port) {
		List<String> command = new ArrayList<>(
				List.of("/bin/sh", "-c", SUPERVISOR, this.binary.path().toString(), "--bind", "127.0.0.1",
						"--daemonize", "no", "--save", "", "--appendonly", "no", "--dir", this.directory.toString(),
						"--dbfilename", "dump.rdb", "--logfile", this.directory.resolve("redis.log").toString()));
		if (this.tls != null) {
			TestCertificates certificates = this.tls.certificates();
			boolean otherHost = this.tls.serverCertificate() == ServerCertificate.OTHER_HOST;
			command.addAll(List.of("--port", "0", "--tls-port", String.valueOf(port), "--tls-cert-file",
					(otherHost ? certificates.otherHostCertificate() : certificates.serverCertificate()).toString(),
					"--tls-key-file", (otherHost ? certificates.otherHostKey() : certificates.serverKey()).toString(),
					"--tls-ca-cert-file", certificates.caCertificate().toString(), "--tls-auth-clients",
					this.tls.requireClientCertificate() ? "yes" : "no"));
		}
		else {
			command.addAll(List.of("--port", String.valueOf(port)));
		}
		if (this.binary.majorVersion() >= 7 && !this.binary.path().getFileName().toString().contains("keydb")) {
			command.addAll(List.of("--enable-debug-command", "local"));
		}
		command.addAll(this.options.apply(this.directory));
		ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
		builder.environment().put("REDLOCK_NODE_OUT", this.directory.resolve("stdout.log").toString());
		Duration nextOffset = this.clockOffsetFromNextStart;
		if (nextOffset != null) {
			try {
				writeClockOffset(nextOffset);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not move the clock of node " + this.name, ex);
			}
			this.clockOffsetFromNextStart = null;
		}
		if (this.fakeClock) {
			builder.environment().putAll(FakeClocks.environment(this.directory.resolve(CLOCK_OFFSET)));
		}
		Process process;
		long serverPid;
		try {
			process = builder.start();
			byte[] line = new byte[32];
			int length = 0;
			int b;
			while ((b = process.getInputStream().read()) != -1 && b != '\n' && length < line.length) {
				line[length++] = (byte) b;
			}
			serverPid = Long.parseLong(new String(line, 0, length, StandardCharsets.US_ASCII).trim());
		}
		catch (IOException | NumberFormatException ex) {
			throw new IllegalStateException("Could not start " + this.binary.path() + " for node " + this.name, ex);
		}
		this.supervisor = process;
		this.pid = serverPid;
		this.paused = false;
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			if (!ProcessHandle.of(serverPid).map(ProcessHandle::isAlive).orElse(false)) {
				reap();
				throw new IllegalStateException(
						"Node " + this.name + " exited while starting on port " + port + ": " + logTail());
			}
			try (RespConnection connection = new RespConnection(port, 1000, this.clientContext)) {
				String info = (String) connection.call("INFO", "server");
				if (info.contains("process_id:" + serverPid + "\r\n")) {
					return;
				}
				// another process answers on this port: ours cannot bind it
				kill();
				throw new IllegalStateException("Port " + port + " is taken by another process");
			}
			catch (IOException ex) {
				sleep(Duration.ofMillis(20));
			}
		}
		kill();
		throw new IllegalStateException("Node " + this.name + " did not answer on port " + port + " within "
				+ START_TIMEOUT.toSeconds() + "s: " + logTail());
	}

	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not find a free loopback port", ex);
		}
	}

	/**
	 * Kills the server with SIGKILL, as a crash would: no data is saved. A later
	 * {@link #start()} brings it back empty on the same port.
	 */
	public synchronized void kill() {
		stopSlowdown();
		long serverPid = this.pid;
		if (serverPid != 0) {
			ProcessHandle.of(serverPid).ifPresent(ProcessHandle::destroyForcibly);
		}
		reap();
		deleteData();
	}

	/**
	 * Stops the process and releases the supervisor once the server has exited.
	 */
	private void reap() {
		Process process = this.supervisor;
		if (process != null) {
			try {
				if (!process.waitFor(10, TimeUnit.SECONDS)) {
					process.destroyForcibly();
				}
				process.getOutputStream().close();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				process.destroyForcibly();
			}
			catch (IOException ex) {
				// the supervisor has gone already
			}
		}
		long serverPid = this.pid;
		if (serverPid != 0) {
			ProcessHandle.of(serverPid).ifPresent((handle) -> {
				handle.destroyForcibly();
				handle.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally((ex) -> handle).join();
			});
		}
		this.supervisor = null;
		this.pid = 0;
		this.paused = false;
		LIVE.remove(this);
	}

	/**
	 * Freezes the server with SIGSTOP: it holds its connections open and answers nothing
	 * until {@link #resume()}.
	 */
	public void pause() {
		signal("STOP");
		this.paused = true;
	}

	/**
	 * Thaws a {@link #pause() paused} server with SIGCONT.
	 */
	public void resume() {
		if (this.paused) {
			signal("CONT");
			this.paused = false;
		}
	}

	private void signal(String signal) {
		long serverPid = requireRunning();
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(serverPid)).inheritIO().start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + serverPid + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not send SIG" + signal + " to node " + this.name, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while signalling node " + this.name, ex);
		}
	}

	/**
	 * Restarts the server on the same port.
	 * @param keepData {@code true} for a clean restart that keeps every key (saved and
	 * reloaded, as with persistence), {@code false} for a crash that loses them all
	 */
	public synchronized void restart(boolean keepData) {
		if (keepData) {
			resume();
			stopSlowdown();
			requireRunning();
			try (RespConnection connection = connect(10_000)) {
				connection.call("SHUTDOWN", "SAVE");
			}
			catch (IOException ex) {
				// expected: the server closes the connection as it exits
			}
			reap();
		}
		else {
			kill();
		}
		start();
	}

	/**
	 * Writes a snapshot of the server's data now ({@code SAVE}) and keeps it aside, as
	 * the last periodic RDB save or the AOF's last fsync would be on a real server: a
	 * later {@link #crashToSnapshot()} brings the server back with this data, however
	 * much has changed since.
	 */
	public synchronized void snapshot() {
		requireRunning();
		call("SAVE");
		try {
			Files.copy(this.directory.resolve("dump.rdb"), this.directory.resolve(SNAPSHOT),
					StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not keep the snapshot of node " + this.name, ex);
		}
	}

	/**
	 * Returns whether a {@link #snapshot()} is kept for this node.
	 * @return whether one is kept
	 */
	public boolean hasSnapshot() {
		return Files.exists(this.directory.resolve(SNAPSHOT));
	}

	/**
	 * Crashes the server (SIGKILL) and starts it again on the same port from the last
	 * {@link #snapshot()}: it comes back with old data, its keys and counters as they
	 * were then, the way a node restarts after a power cut with periodic persistence.
	 * @throws IllegalStateException if no snapshot was taken
	 */
	public synchronized void crashToSnapshot() {
		Path snapshot = this.directory.resolve(SNAPSHOT);
		if (!Files.exists(snapshot)) {
			throw new IllegalStateException("Node " + this.name + " has no snapshot: call snapshot() first");
		}
		kill();
		try {
			Files.copy(snapshot, this.directory.resolve("dump.rdb"), StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not restore the snapshot of node " + this.name, ex);
		}
		start();
	}

	/**
	 * Makes the server slow: until {@link #unslow()}, it is kept busy in repeated
	 * {@code DEBUG SLEEP} calls of the given length, so every command waits for up to
	 * that long.
	 * @param latency how long each stall lasts
	 */
	public synchronized void slow(Duration latency) {
		stopSlowdown();
		requireRunning();
		String seconds = String.format(Locale.ROOT, "%.3f", latency.toNanos() / 1e9);
		int timeout = (int) Math.max(1000, latency.toMillis() * 4);
		CountDownLatch stalling = new CountDownLatch(1);
		Thread thread = new Thread(() -> {
			try (RespConnection connection = connect(timeout)) {
				while (!Thread.currentThread().isInterrupted()) {
					connection.send("DEBUG", "SLEEP", seconds);
					stalling.countDown();
					connection.read();
				}
			}
			catch (IOException ex) {
				// the node stopped or the slowdown ended
			}
			finally {
				stalling.countDown();
			}
		}, "redlock-slow-" + this.name);
		thread.setDaemon(true);
		thread.start();
		this.slowdown = thread;
		try {
			// return once the first stall is on its way, so that the node is slow from
			// now on
			stalling.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Ends a {@link #slow(Duration) slowdown}.
	 */
	public synchronized void unslow() {
		stopSlowdown();
	}

	private void stopSlowdown() {
		Thread thread = this.slowdown;
		if (thread != null) {
			thread.interrupt();
			try {
				thread.join(10_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.slowdown = null;
		}
	}

	/**
	 * Sets how far the server's wall clock is from this machine's: from now on it reads
	 * the machine's clock plus {@code offset}, at once, as after a clock step; it keeps
	 * the offset across restarts until set again. Keys expire by the moved clock, and
	 * {@code TIME} reports it; the server's monotonic clock is not moved.
	 * @param offset how far ahead (positive) or behind (negative) its clock is
	 * @throws IllegalStateException unless the node was started with a fake clock
	 * ({@link RedisFleet#startWithFakeClocks(int)})
	 */
	public void clockOffset(Duration offset) {
		if (!this.fakeClock) {
			throw new IllegalStateException("Node " + this.name
					+ " runs with the machine's clock: start it with RedisFleet.startWithFakeClocks to move its clock");
		}
		try {
			writeClockOffset(offset);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not move the clock of node " + this.name, ex);
		}
	}

	/**
	 * Sets how far the server's wall clock will be from this machine's once it next
	 * starts ({@link #start()}, {@link #restart(boolean)}, {@link #crashToSnapshot()}),
	 * as a machine's clock set while it was down: the running server's clock does not
	 * move.
	 * @param offset how far ahead (positive) or behind (negative) its clock will be
	 * @throws IllegalStateException unless the node was started with a fake clock
	 */
	public void clockOffsetFromNextStart(Duration offset) {
		if (!this.fakeClock) {
			throw new IllegalStateException("Node " + this.name
					+ " runs with the machine's clock: start it with RedisFleet.startWithFakeClocks to move its clock");
		}
		this.clockOffsetFromNextStart = offset;
	}

	/**
	 * Returns how far the server's wall clock is from this machine's: zero unless moved
	 * by {@link #clockOffset(Duration)}.
	 * @return the offset
	 */
	public Duration clockOffset() {
		return this.clockOffset;
	}

	/**
	 * Returns the binary the node runs.
	 * @return the binary
	 */
	public RedisServerBinary binary() {
		return this.binary;
	}

	/**
	 * Returns whether the node runs with a fake clock, which
	 * {@link #clockOffset(Duration)} moves.
	 * @return whether its clock can be moved
	 */
	public boolean hasFakeClock() {
		return this.fakeClock;
	}

	private void writeClockOffset(Duration offset) throws IOException {
		// libfaketime reads the file at every clock call: it must never see it half
		// written
		Path temp = this.directory.resolve(CLOCK_OFFSET + ".tmp");
		Files.writeString(temp, String.format(Locale.ROOT, "%+.6f", offset.toNanos() / 1e9));
		Files.move(temp, this.directory.resolve(CLOCK_OFFSET), StandardCopyOption.REPLACE_EXISTING,
				StandardCopyOption.ATOMIC_MOVE);
		this.clockOffset = offset;
	}

	/**
	 * Runs one command on the server and returns its reply: a {@code String},
	 * {@code Long}, {@code List} or {@code null}.
	 * @param args the command and its arguments
	 * @return the reply
	 * @throws UncheckedIOException if the node cannot be reached or answers with an error
	 */
	public @Nullable Object call(String... args) {
		try (RespConnection connection = connect(10_000)) {
			return connection.call(args);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Node " + this.name + " failed " + String.join(" ", args[0]), ex);
		}
	}

	private RespConnection connect(int timeoutMillis) throws IOException {
		return new RespConnection(requirePort(), timeoutMillis, this.clientContext);
	}

	private long requireRunning() {
		long serverPid = this.pid;
		if (serverPid == 0) {
			throw new IllegalStateException("Node " + this.name + " is not running");
		}
		return serverPid;
	}

	private int requirePort() {
		if (this.port == 0) {
			throw new IllegalStateException("Node " + this.name + " has not started");
		}
		return this.port;
	}

	/**
	 * Returns whether the server process is running (paused counts as running).
	 * @return whether it runs
	 */
	public boolean isRunning() {
		long serverPid = this.pid;
		return serverPid != 0 && ProcessHandle.of(serverPid).map(ProcessHandle::isAlive).orElse(false);
	}

	/**
	 * Returns whether the server is paused.
	 * @return whether it is paused
	 */
	public boolean isPaused() {
		return this.paused;
	}

	/**
	 * Returns the node's name.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Returns the directory the server runs in, for tests of its clean-up.
	 */
	Path directory() {
		return this.directory;
	}

	/**
	 * Returns whether the node listens only on TLS.
	 * @return whether it is a TLS node
	 */
	public boolean isTls() {
		return this.tls != null;
	}

	/**
	 * Returns the loopback port the node listens on: its TLS port for a TLS node.
	 * @return the port
	 */
	public int port() {
		return requirePort();
	}

	/**
	 * Returns the server's process id, or 0 when it is not running.
	 * @return the pid
	 */
	public long pid() {
		return this.pid;
	}

	/**
	 * Returns the node's URI, such as {@code redis://127.0.0.1:6379}, or
	 * {@code rediss://127.0.0.1:6379} for a TLS node. The host is the address the server
	 * listens on, not {@code localhost}, which may resolve to {@code ::1} first; the
	 * {@link TestCertificates#serverCertificate() server certificate} names
	 * {@code 127.0.0.1}, so hostname verification passes.
	 * @return the URI
	 */
	public String uri() {
		return ((this.tls != null) ? "rediss" : "redis") + "://127.0.0.1:" + requirePort();
	}

	/**
	 * Leaves stopping this node at JVM exit to its owner, which closes it in a shutdown
	 * hook of its own (an application context that must release its locks first), rather
	 * than to the reaper's hook, which runs at the same time as the others. Should the
	 * owner never close it, the server still stops when this JVM exits (its supervisor
	 * watches the JVM), and the next JVM that starts a node deletes its directory.
	 */
	public void leaveToOwnerAtExit() {
		if (!this.closed) {
			LEFT_TO_OWNER.add(this);
		}
	}

	/**
	 * Stops the server (thawing it first if paused) and deletes its data directory.
	 */
	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		stopSlowdown();
		if (this.pid != 0) {
			if (this.paused) {
				try {
					signal("CONT");
				}
				catch (RuntimeException ex) {
					// it is killed below anyway
				}
			}
			kill();
		}
		this.closed = true;
		LIVE.remove(this);
		LEFT_TO_OWNER.remove(this);
		try (Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// best effort: it is a temporary directory
		}
	}

	private void deleteData() {
		try {
			Files.deleteIfExists(this.directory.resolve("dump.rdb"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not delete the data of node " + this.name, ex);
		}
	}

	private String logTail() {
		try {
			Path log = this.directory.resolve("redis.log");
			Path out = this.directory.resolve("stdout.log");
			String text = (Files.exists(log) ? Files.readString(log) : "")
					+ (Files.exists(out) ? Files.readString(out) : "");
			return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while starting a node", ex);
		}
	}

	@Override
	public String toString() {
		return this.name + "@" + ((this.port != 0) ? uri() : "unstarted")
				+ (this.paused ? " (paused)" : isRunning() ? "" : " (down)");
	}

	/**
	 * How a TLS node uses TLS.
	 *
	 * @param certificates the certificates: the server's, its key and the CA that clients
	 * must be signed by; they must stay open while the node runs, since it reads them
	 * again each time it starts
	 * @param requireClientCertificate whether the node refuses clients that do not
	 * present a certificate signed by the CA ({@code tls-auth-clients yes} rather than
	 * {@code no})
	 * @param serverCertificate which server certificate the node presents
	 */
	public record Tls(TestCertificates certificates, boolean requireClientCertificate,
			ServerCertificate serverCertificate) {

		/**
		 * Checks that nothing is missing.
		 * @param certificates the certificates
		 * @param requireClientCertificate whether client certificates are required
		 * @param serverCertificate which server certificate the node presents
		 */
		public Tls {
			Objects.requireNonNull(certificates, "certificates");
			Objects.requireNonNull(serverCertificate, "serverCertificate");
		}

	}

	/**
	 * The server certificate a TLS node presents.
	 */
	public enum ServerCertificate {

		/**
		 * The {@link TestCertificates#serverCertificate() certificate for localhost and
		 * 127.0.0.1}, which hostname verification accepts.
		 */
		LOCALHOST,

		/**
		 * The {@link TestCertificates#otherHostCertificate() certificate for another host
		 * only}: signed by the same CA, but refused by hostname verification.
		 */
		OTHER_HOST

	}

}
