package io.github.redlock.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockSemaphore;
import io.github.redlock.engine.BrokenEngines;
import io.github.redlock.engine.RedlockRegistry;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * One client JVM of the torture run: its own registry and threads contend on a few keys
 * until a stop file appears: half the time for an exclusive lock, else for the read or
 * write lock of {@link TortureStore#READ_WRITE_KEY} or a permit of the semaphore of
 * {@link TortureStore#SEMAPHORE_KEY}. Each exclusive or write section writes three times
 * to the fenced store with its token; read and permit sections hold for as long without
 * writing. Each records what it did. Started by {@link TortureIntegrationTests}.
 */
public final class TortureClient {

	private TortureClient() {
	}

	/**
	 * Arguments: id, nodes (comma separated), store URI, keys, threads, ttl ms, max ttl
	 * ms, stop file, seed, the store's mode ({@link TortureStore#FENCED} or
	 * {@link TortureStore#TRUSTING}), and how to break the engine: {@code none}, or
	 * {@code broken} for a quorum of one, fencing counters reset before every acquisition
	 * and a semaphore of one permit more than the checker allows (for showing that the
	 * checker finds what that breaks).
	 */
	public static void main(String[] args) throws Exception {
		String id = args[0];
		List<String> nodes = Arrays.asList(args[1].split(","));
		String store = args[2];
		int keys = Integer.parseInt(args[3]);
		int threads = Integer.parseInt(args[4]);
		Duration ttl = Duration.ofMillis(Long.parseLong(args[5]));
		Duration maxTtl = Duration.ofMillis(Long.parseLong(args[6]));
		Path stop = Path.of(args[7]);
		long seed = Long.parseLong(args[8]);
		String storeMode = args[9];
		boolean broken = args[10].equals("broken");
		// the engine's debug log, for explaining a violation
		java.util.logging.Logger engine = java.util.logging.Logger.getLogger("io.github.redlock.engine");
		java.util.logging.FileHandler file = new java.util.logging.FileHandler(
				stop.resolveSibling("client-" + id + ".log").toString());
		file.setFormatter(new java.util.logging.SimpleFormatter());
		file.setLevel(java.util.logging.Level.FINE);
		engine.addHandler(file);
		engine.setLevel(java.util.logging.Level.FINE);
		AtomicLong acquisitions = new AtomicLong();
		AtomicLong refused = new AtomicLong();
		AtomicLong writes = new AtomicLong();
		AtomicLong sequence = new AtomicLong();
		RedisClient storeClient = RedisClient.create(store);
		try (RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(nodes)
			.defaultTtl(ttl)
			.maxTtl(maxTtl)
			.build()
			.start()) {
			CounterReset counterReset = broken ? CounterReset.on(nodes) : null;
			if (broken) {
				BrokenEngines.quorumOfOne(registry);
			}
			System.out.println("READY " + id);
			System.out.flush();
			// broken: a semaphore of one permit more than the checker allows, taken more
			// often, so that the checker must find more holders than permits
			LockSemaphore semaphore = registry.semaphore(TortureStore.SEMAPHORE_KEY,
					broken ? TortureStore.PERMITS + 1 : TortureStore.PERMITS);
			double exclusiveShare = broken ? 0.25 : 0.5;
			double readWriteShare = broken ? 0.5 : 0.8;
			List<Thread> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				Random random = new Random(seed * 31 + t);
				StatefulRedisConnection<String, String> connection = storeClient.connect();
				RedisCommands<String, String> commands = connection.sync();
				Thread worker = new Thread(() -> {
					while (!Files.exists(stop)) {
						double pick = random.nextDouble();
						String key = (pick < exclusiveShare) ? "k" + random.nextInt(keys)
								: (pick < readWriteShare) ? TortureStore.READ_WRITE_KEY : TortureStore.SEMAPHORE_KEY;
						String mode = (pick < exclusiveShare) ? "X"
								: (pick < readWriteShare) ? ((random.nextInt(10) < 7) ? "R" : "W") : "P";
						boolean fenced = mode.equals("X") || mode.equals("W");
						String section = id + "-" + Thread.currentThread().getName() + "-" + sequence.incrementAndGet();
						long askedAt = System.nanoTime();
						Lease lease;
						try {
							if (counterReset != null) {
								counterReset.reset(key);
							}
							lease = switch (mode) {
								case "R" -> registry.acquireRead(key, ttl, Duration.ofSeconds(2), true);
								case "W" -> registry.acquireWrite(key, ttl, Duration.ofSeconds(2), true);
								case "P" -> semaphore.acquire(ttl, Duration.ofSeconds(2), true);
								default -> registry.acquire(key, ttl, Duration.ofSeconds(2), true);
							};
						}
						catch (LockAcquisitionException ex) {
							refused.incrementAndGet();
							continue;
						}
						catch (InterruptedException ex) {
							return;
						}
						acquisitions.incrementAndGet();
						long token = lease.fencingToken();
						long start = System.nanoTime();
						long safeEnd = start + lease.remainingValidity().toNanos();
						try {
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
								String opId = id + "-" + sequence.incrementAndGet();
								Long accepted = commands.eval(TortureStore.WRITE, ScriptOutputType.INTEGER,
										new String[] { TortureStore.highestKey(key), TortureStore.logKey(key) },
										String.valueOf(token), opId, section, storeMode);
								commands.rpush(TortureStore.WRITES, opId + " " + key + " " + token + " " + send + " "
										+ (late ? 1 : 0) + " " + accepted);
								writes.incrementAndGet();
								Thread.sleep(2 + random.nextInt(12));
							}
						}
						catch (InterruptedException ex) {
							return;
						}
						finally {
							long end = System.nanoTime();
							commands.rpush(TortureStore.SECTIONS, key + " " + id + " " + token + " " + start + " " + end
									+ " " + safeEnd + " " + section + " " + askedAt + " " + mode);
							lease.release();
						}
					}
				}, "torture-" + id + "-" + t);
				worker.start();
				workers.add(worker);
			}
			for (Thread worker : workers) {
				worker.join();
			}
		}
		finally {
			storeClient.shutdown();
			CounterReset.shutdown();
		}
		System.out
			.println("RESULT " + id + " acquisitions=" + acquisitions + " refused=" + refused + " writes=" + writes);
		System.out.flush();
	}

	/**
	 * The broken engine's second fault: sets the key's fencing counter to 0 on every node
	 * before each acquisition, so tokens restart from 1.
	 */
	private static final class CounterReset {

		private static final List<RedisClient> CLIENTS = new ArrayList<>();

		private final List<RedisCommands<String, String>> nodes;

		private CounterReset(List<RedisCommands<String, String>> nodes) {
			this.nodes = nodes;
		}

		static CounterReset on(List<String> uris) {
			List<RedisCommands<String, String>> nodes = new ArrayList<>();
			for (String uri : uris) {
				RedisClient client = RedisClient.create(uri);
				CLIENTS.add(client);
				nodes.add(client.connect().sync());
			}
			return new CounterReset(nodes);
		}

		synchronized void reset(String key) {
			for (RedisCommands<String, String> node : this.nodes) {
				node.set("redlock:fence:{" + key + "}", "0");
			}
		}

		static void shutdown() {
			CLIENTS.forEach(RedisClient::shutdown);
		}

	}

}
