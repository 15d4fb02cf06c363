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
import io.github.redlock.engine.RedlockRegistry;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * One client JVM of the torture run: its own registry and threads contend on a few keys
 * until a stop file appears. Each critical section writes three times to the fenced store
 * with its token and records what it did. Started by {@link TortureIntegrationTests}.
 */
public final class TortureClient {

	private TortureClient() {
	}

	/**
	 * Arguments: id, nodes (comma separated), store URI, keys, threads, ttl ms, max ttl
	 * ms, stop file, seed.
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
			System.out.println("READY " + id);
			System.out.flush();
			List<Thread> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				Random random = new Random(seed * 31 + t);
				StatefulRedisConnection<String, String> connection = storeClient.connect();
				RedisCommands<String, String> commands = connection.sync();
				Thread worker = new Thread(() -> {
					while (!Files.exists(stop)) {
						String key = "k" + random.nextInt(keys);
						Lease lease;
						try {
							lease = registry.acquire(key, ttl, Duration.ofSeconds(2), true);
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
								boolean late = send > safeEnd;
								String opId = id + "-" + sequence.incrementAndGet();
								Long accepted = commands.eval(TortureStore.WRITE, ScriptOutputType.INTEGER,
										new String[] { TortureStore.highestKey(key), TortureStore.logKey(key) },
										String.valueOf(token), opId);
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
							commands.rpush(TortureStore.SECTIONS,
									key + " " + id + " " + token + " " + start + " " + end + " " + safeEnd);
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
		}
		System.out
			.println("RESULT " + id + " acquisitions=" + acquisitions + " refused=" + refused + " writes=" + writes);
		System.out.flush();
	}

}
