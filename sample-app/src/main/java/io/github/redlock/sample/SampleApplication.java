package io.github.redlock.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.engine.RedlockRegistry;

/**
 * A tour of the engine on five local nodes: concurrent payments for one order charge it
 * once, fencing tokens stop a stale writer, and the quorum survives two dead nodes but
 * not three. The Spring Boot version of this sample comes with the auto-configuration.
 */
public final class SampleApplication {

	private SampleApplication() {
	}

	public static void main(String[] args) throws Exception {
		try (RedisFleet fleet = RedisFleet.start(5)) {
			log("Started 5 local redis-server nodes: " + fleet.uris());
			try (RedlockRegistry registry = RedlockRegistry.builder()
				.nodes(fleet.uris())
				// the nodes were just started: a restart guard would keep them out for
				// max-ttl
				.restartGuard(false)
				.build()
				.start()) {
				payConcurrently(registry);
				fencing(registry);
				faults(fleet, registry);
			}
		}
		log("Stopped the nodes. Bye.");
	}

	private static void payConcurrently(RedlockRegistry registry) throws Exception {
		log("--- 8 threads pay order 42 at once; the lock lets one charge it ---");
		ConcurrentHashMap<Long, String> charges = new ConcurrentHashMap<>();
		ExecutorService pool = Executors.newFixedThreadPool(8);
		List<Future<String>> results = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			results.add(pool
				.submit(() -> registry.executeLocked("order:42", Duration.ofSeconds(10), Duration.ofSeconds(5), () -> {
					if (charges.containsKey(42L)) {
						return Thread.currentThread().getName() + ": already paid, nothing to do";
					}
					Thread.sleep(100); // talk to the payment provider
					charges.put(42L, Thread.currentThread().getName());
					return Thread.currentThread().getName() + ": charged order 42";
				})));
		}
		for (Future<String> result : results) {
			log(result.get());
		}
		pool.shutdown();
		log("Charges recorded for order 42: " + charges.size());
	}

	private static void fencing(RedlockRegistry registry) throws Exception {
		log("--- fencing tokens: the store rejects a holder older than the last writer ---");
		AtomicLong lastToken = new AtomicLong();
		Lease slow = registry.acquire("report", Duration.ofMillis(1500), Duration.ZERO);
		log("Writer A holds the lock with token " + slow.fencingToken() + ", then pauses (think: a long GC)");
		Thread.sleep(1600);
		try (Lease fast = registry.acquire("report", Duration.ofSeconds(10), Duration.ofSeconds(5))) {
			write(lastToken, "B", fast.fencingToken());
		}
		write(lastToken, "A", slow.fencingToken());
		slow.close();
	}

	private static void write(AtomicLong lastToken, String writer, long token) {
		long seen = lastToken.get();
		if (token > seen && lastToken.compareAndSet(seen, token)) {
			log("Store accepted writer " + writer + " with token " + token);
		}
		else {
			log("Store REJECTED writer " + writer + ": token " + token + " is older than " + seen);
		}
	}

	private static void faults(RedisFleet fleet, RedlockRegistry registry) throws InterruptedException {
		log("--- faults: kill 2 of 5 nodes, then a third ---");
		fleet.node(0).kill();
		fleet.node(1).kill();
		try (Lease lease = registry.acquire("inventory", Duration.ofSeconds(10), Duration.ofSeconds(2))) {
			log("With 2 nodes down the lock is still acquired (token " + lease.fencingToken() + ")");
		}
		fleet.node(2).kill();
		try (Lease lease = registry.acquire("inventory", Duration.ofSeconds(10), Duration.ofSeconds(1))) {
			log("Unexpected: acquired without a quorum");
		}
		catch (LockAcquisitionException ex) {
			log("With 3 nodes down: " + ex.getMessage());
		}
	}

	private static void log(String message) {
		System.out.println("[sample] " + message);
	}

}
