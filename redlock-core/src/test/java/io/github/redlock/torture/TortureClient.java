package io.github.redlock.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockSemaphore;
import io.github.redlock.engine.BrokenEngines;
import io.github.redlock.engine.RedlockRegistry;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * One client JVM of the torture run: its own registry and threads contend on a few keys
 * until a stop file appears. In the {@code mix} plan, half the time for an exclusive
 * lock, else for the read, write or exclusive lock of {@link TortureStore#READ_WRITE_KEY}
 * or a permit of the semaphore of {@link TortureStore#SEMAPHORE_KEY}. In the
 * {@code broken} plan, one thread per {@link BrokenVariant}, each broken its way on its
 * own key. Each exclusive or write section writes three times to the store with its
 * token; read and permit sections hold for as long without writing. Each records in the
 * store, as {@link History} events, what it asked for and got or was refused, when its
 * section ended, its writes, what it threw if it threw anything but a refusal (the worker
 * then ends and the JVM exits with {@value #WORKER_FAILED}), and when the JVM stood
 * still. Started by {@link TortureIntegrationTests}.
 */
public final class TortureClient {

	/** The exit status of a client one of whose workers threw. */
	static final int WORKER_FAILED = 3;

	/** The exit status of a client whose workers did not end after the stop file. */
	static final int WORKER_HUNG = 4;

	/**
	 * A file beside the stop file whose presence holds the {@link BrokenVariant#NO_FLOOR}
	 * workers off: each says so once in {@link #HOLDING}.
	 */
	static final String HOLD_NO_FLOOR = "hold-no-floor";

	/** The store's list where each floorless worker says it holds off. */
	static final String HOLDING = "holding";

	private static final Duration WAIT = Duration.ofSeconds(2);

	/**
	 * How the nodes argument begins when the members are clusters
	 * ({@code ClusterTortureIntegrationTests}).
	 */
	static final String CLUSTERS = "clusters=";

	/** How long each section stays after its writes, in ms: see {@link #main}. */
	private static volatile long lingerMillis;

	/** The key a worker is taking, for the report of what it threw. */
	private static final ThreadLocal<String> CURRENT_KEY = ThreadLocal.withInitial(() -> "-");

	private final String id;

	private final List<String> nodes;

	private final Duration ttl;

	private final Path stop;

	private final RedisClient storeClient;

	private final AtomicLong sequence = new AtomicLong();

	private final AtomicLong acquisitions = new AtomicLong();

	private final AtomicLong refused = new AtomicLong();

	private final AtomicLong writes = new AtomicLong();

	private final AtomicBoolean failed = new AtomicBoolean();

	private final Map<String, RedisCommands<String, String>> direct = new ConcurrentHashMap<>();

	private final List<RedisClient> directClients = new ArrayList<>();

	private TortureClient(String id, List<String> nodes, String store, Duration ttl, Path stop) {
		this.id = id;
		this.nodes = nodes;
		this.ttl = ttl;
		this.stop = stop;
		this.storeClient = RedisClient.create(store);
	}

	/**
	 * Arguments: id, nodes (comma separated, or cluster members as {@link #CLUSTERS}
	 * says), store URI, keys, threads, ttl ms, max ttl ms, stop file, seed, and the plan:
	 * {@code mix} for the torture's mix of locks, {@code broken} for one thread per
	 * {@link BrokenVariant}, or {@code cluster-mix} for the mix with sections that stay 2
	 * s.
	 */
	public static void main(String[] args) throws Exception {
		String id = args[0];
		List<String> nodes = Arrays.asList(args[1].split(","));
		int keys = Integer.parseInt(args[3]);
		int threads = Integer.parseInt(args[4]);
		Duration ttl = Duration.ofMillis(Long.parseLong(args[5]));
		Duration maxTtl = Duration.ofMillis(Long.parseLong(args[6]));
		Path stop = Path.of(args[7]);
		long seed = Long.parseLong(args[8]);
		boolean broken = args[9].equals("broken");
		if (args[9].equals("cluster-mix")) {
			// a member sees a failover within about a second and a half (its view's
			// refresh, then the promoted master's check): sections that last longer are
			// what a lock lost in it can be seen to let a second holder into
			lingerMillis = 2000;
		}
		// the engine's debug log, for explaining a violation
		java.util.logging.Logger engine = java.util.logging.Logger.getLogger("io.github.redlock.engine");
		java.util.logging.FileHandler file = new java.util.logging.FileHandler(
				stop.resolveSibling("client-" + id + ".log").toString());
		file.setFormatter(new java.util.logging.SimpleFormatter());
		file.setLevel(java.util.logging.Level.FINE);
		engine.addHandler(file);
		engine.setLevel(java.util.logging.Level.FINE);
		TortureClient client = new TortureClient(id, nodes, args[2], ttl, stop);
		int status = client.run(keys, threads, maxTtl, seed, broken);
		System.out.println("RESULT " + id + " acquisitions=" + client.acquisitions + " refused=" + client.refused
				+ " writes=" + client.writes);
		System.out.flush();
		System.exit(status);
	}

	private int run(int keys, int threads, Duration maxTtl, long seed, boolean broken) throws Exception {
		List<RedlockRegistry> registries = new ArrayList<>();
		try {
			RedlockRegistry registry = start(maxTtl, registries);
			List<Thread> workers = new ArrayList<>();
			Thread stalls = new Thread(this::watchStalls, "torture-stalls-" + this.id);
			stalls.setDaemon(true);
			stalls.start();
			if (broken) {
				RedlockRegistry quorumOfOne = start(maxTtl, registries);
				BrokenEngines.quorumOfOne(quorumOfOne);
				RedlockRegistry floorless = start(maxTtl, registries);
				BrokenEngines.floorAndStartRemoved(floorless);
				for (BrokenVariant variant : BrokenVariant.values()) {
					RedlockRegistry chosen = variant.quorumOfOne() ? quorumOfOne
							: variant.withoutFloorAndStart() ? floorless : registry;
					Random random = new Random(seed * 31 + variant.ordinal());
					workers.add(worker(variant.name(), () -> work(chosen, variant, random)));
				}
			}
			else {
				for (int t = 0; t < threads; t++) {
					Random random = new Random(seed * 31 + t);
					workers.add(worker(String.valueOf(t), () -> mix(registry, keys, random)));
				}
			}
			System.out.println("READY " + this.id);
			System.out.flush();
			workers.forEach(Thread::start);
			while (!Files.exists(this.stop)) {
				Thread.sleep(100);
			}
			// a worker's acquisition waits at most its wait time, and its section
			// writes a few times
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			for (Thread worker : workers) {
				worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
				if (worker.isAlive()) {
					System.out.println("HUNG " + worker.getName() + " " + Arrays.toString(worker.getStackTrace()));
					return WORKER_HUNG;
				}
			}
			return this.failed.get() ? WORKER_FAILED : 0;
		}
		finally {
			registries.forEach(RedlockRegistry::close);
			this.directClients.forEach(RedisClient::shutdown);
			this.storeClient.shutdown();
		}
	}

	private RedlockRegistry start(Duration maxTtl, List<RedlockRegistry> registries) {
		RedlockRegistry.Builder builder = RedlockRegistry.builder();
		if (this.nodes.get(0).startsWith(CLUSTERS)) {
			// "clusters=" then each member's seeds, "|" between seeds and ";" between
			// members
			for (String member : this.nodes.get(0).substring(CLUSTERS.length()).split(";")) {
				builder.cluster(member.split("\\|"));
			}
		}
		else {
			builder.nodes(this.nodes);
		}
		RedlockRegistry registry = builder.defaultTtl(this.ttl).maxTtl(maxTtl).build().start();
		registries.add(registry);
		return registry;
	}

	private Thread worker(String name, Work work) {
		RedisCommands<String, String> store = this.storeClient.connect().sync();
		String threadName = "torture-" + this.id + "-" + name;
		return new Thread(() -> {
			try {
				work.run();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (Throwable ex) {
				// a refusal is caught where it is thrown: anything else is the engine's
				// failure, and the checker must hear of it
				this.failed.set(true);
				System.out.println("WORKER FAILED " + threadName);
				ex.printStackTrace(System.out);
				record(store,
						History.Event.of("error")
							.with("client", this.id)
							.with("key", CURRENT_KEY.get())
							.with("thread", threadName)
							.with("message", ex.toString())
							.at(System.nanoTime()));
			}
		}, threadName);
	}

	private void mix(RedlockRegistry registry, int keys, Random random) throws Exception {
		RedisCommands<String, String> store = this.storeClient.connect().sync();
		LockSemaphore semaphore = registry.semaphore(TortureStore.SEMAPHORE_KEY, TortureStore.PERMITS);
		while (!Files.exists(this.stop)) {
			double pick = random.nextDouble();
			if (pick < 0.5) {
				section(store, registry, null, "k" + random.nextInt(keys), "X", random, null);
			}
			else if (pick < 0.8) {
				// the exclusive lock and the write lock of a key are one lock
				int mode = random.nextInt(20);
				section(store, registry, null, TortureStore.READ_WRITE_KEY, (mode < 12) ? "R" : (mode < 17) ? "W" : "X",
						random, null);
			}
			else {
				section(store, registry, semaphore, TortureStore.SEMAPHORE_KEY, "P", random, null);
			}
		}
	}

	private void work(RedlockRegistry registry, BrokenVariant variant, Random random) throws Exception {
		RedisCommands<String, String> store = this.storeClient.connect().sync();
		LockSemaphore semaphore = registry.semaphore(variant.key(),
				(variant == BrokenVariant.EXTRA_PERMIT) ? TortureStore.PERMITS + 1 : TortureStore.PERMITS);
		Path hold = this.stop.resolveSibling(HOLD_NO_FLOOR);
		boolean holding = false;
		while (!Files.exists(this.stop)) {
			if (variant == BrokenVariant.NO_FLOOR && Files.exists(hold)) {
				if (!holding) {
					store.rpush(HOLDING, this.id);
					holding = true;
				}
				Thread.sleep(20);
				continue;
			}
			holding = false;
			String mode = String.valueOf(variant.modes().charAt(random.nextInt(variant.modes().length())));
			if (!section(store, registry, semaphore, variant.key(), mode, random, variant)) {
				return;
			}
		}
	}

	/**
	 * Takes the key once, in the given mode, and records the section; broken the
	 * variant's way if one is given. Returns {@code false} once the variant has done harm
	 * that its worker must not undo (a lock key left behind).
	 */
	private boolean section(RedisCommands<String, String> store, RedlockRegistry registry, LockSemaphore semaphore,
			String key, String mode, Random random, BrokenVariant variant) throws Exception {
		CURRENT_KEY.set(key);
		boolean fenced = mode.equals("X") || mode.equals("W");
		boolean autoExtend = variant == null || variant.keptExtended();
		String section = this.id + "-" + Thread.currentThread().getName() + "-" + this.sequence.incrementAndGet();
		History.Event event = History.Event.of("")
			.with("client", this.id)
			.with("key", key)
			.with("mode", mode)
			.with("section", section);
		long askedAt = System.nanoTime();
		record(store, event.as("invoke").with("thread", Thread.currentThread().getName()).at(askedAt));
		if (variant == BrokenVariant.COUNTER_RESET) {
			for (String node : this.nodes) {
				direct(node).set("redlock:fence:{" + key + "}", "0");
			}
		}
		if (variant == BrokenVariant.THROWING && random.nextInt(4) == 0) {
			throw new IllegalStateException("broken engine: it threw instead of granting or refusing " + key);
		}
		Lease lease;
		try {
			lease = switch (mode) {
				case "R" -> registry.acquireRead(key, this.ttl, WAIT, autoExtend);
				case "W" -> registry.acquireWrite(key, this.ttl, WAIT, autoExtend);
				case "P" -> semaphore.acquire(this.ttl, WAIT, autoExtend);
				default -> registry.acquire(key, this.ttl, WAIT, autoExtend);
			};
		}
		catch (LockAcquisitionException ex) {
			this.refused.incrementAndGet();
			record(store, event.as("fail").with("reason", ex.getMessage()).at(System.nanoTime()));
			return true;
		}
		this.acquisitions.incrementAndGet();
		boolean abandon = false;
		if (variant == BrokenVariant.EXPIRED_LEASES) {
			// returned once its validity is spent
			Thread.sleep(lease.remainingValidity().toMillis() + 20);
		}
		else if (variant == BrokenVariant.STUCK_KEY || variant == BrokenVariant.LEFTOVER_KEY) {
			List<String> persisted = (variant == BrokenVariant.STUCK_KEY) ? this.nodes : this.nodes.subList(0, 1);
			for (String node : persisted) {
				direct(node).persist("redlock:lock:{" + key + "}");
			}
			abandon = true;
		}
		long token = lease.fencingToken();
		long start = System.nanoTime();
		long safeEnd = start + lease.remainingValidity().toNanos();
		event = event.with("token", token);
		record(store, event.as("ok").at(start).with("validUntil", safeEnd));
		try {
			if (variant == BrokenVariant.LATE_WRITER && this.id.equals("c0")) {
				// stands still past its lease until a newer holder has written
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
				while (System.nanoTime() < deadline && highestWritten(store, key) <= token) {
					Thread.sleep(20);
				}
			}
			for (int w = 0; w < 3; w++) {
				long send = System.nanoTime();
				Duration remaining = lease.remainingValidity();
				if (!remaining.isZero()) {
					safeEnd = Math.max(safeEnd, send + remaining.toNanos());
				}
				if (!fenced) {
					Thread.sleep(2 + random.nextInt(12));
					continue;
				}
				boolean late = send > safeEnd;
				String opId = this.id + "-" + this.sequence.incrementAndGet();
				Long accepted = store.eval(TortureStore.WRITE, ScriptOutputType.INTEGER,
						new String[] { TortureStore.highestKey(key), TortureStore.logKey(key) }, String.valueOf(token),
						opId, section, (variant != null) ? variant.storeMode() : TortureStore.FENCED);
				record(store,
						History.Event.of("write")
							.with("op", opId)
							.with("client", this.id)
							.with("key", key)
							.with("token", token)
							.with("section", section)
							.at(send)
							.with("late", late ? 1 : 0)
							.with("accepted", accepted));
				this.writes.incrementAndGet();
				Thread.sleep(2 + random.nextInt(12));
			}
			if (lingerMillis > 0) {
				Thread.sleep(lingerMillis);
			}
		}
		finally {
			long end = System.nanoTime();
			// a section that outlived its lease lost the lock before it let go
			record(store, event.as((end > safeEnd) ? "lost" : "release").at(end).with("validUntil", safeEnd));
			if (!abandon) {
				lease.release();
			}
		}
		return !abandon;
	}

	private static void record(RedisCommands<String, String> store, History.Event event) {
		store.rpush(History.EVENTS, event.toJson());
	}

	private static long highestWritten(RedisCommands<String, String> store, String key) {
		String highest = store.get(TortureStore.highestKey(key));
		return (highest != null) ? Long.parseLong(highest.substring(0, highest.indexOf(' '))) : 0;
	}

	private RedisCommands<String, String> direct(String node) {
		return this.direct.computeIfAbsent(node, (uri) -> {
			RedisClient client = RedisClient.create(uri);
			synchronized (this.directClients) {
				this.directClients.add(client);
			}
			return client.connect().sync();
		});
	}

	/**
	 * Notes each time this JVM stood still for {@link TortureChecker#STALL_NANOS} or more
	 * (SIGSTOP, a long safepoint): a lease that ran out meanwhile ran out through no
	 * fault of the engine's.
	 */
	private void watchStalls() {
		RedisCommands<String, String> store = this.storeClient.connect().sync();
		long last = System.nanoTime();
		while (true) {
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				return;
			}
			long now = System.nanoTime();
			if (now - last >= TortureChecker.STALL_NANOS) {
				record(store,
						History.Event.of("stall")
							.with("client", this.id)
							.with("from", last)
							.with("to", now)
							.with("wall", java.time.Instant.now()));
			}
			last = now;
		}
	}

	@FunctionalInterface
	private interface Work {

		void run() throws Exception;

	}

}
