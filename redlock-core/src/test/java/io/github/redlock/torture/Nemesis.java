package io.github.redlock.torture;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;

/**
 * Injects faults on a schedule drawn from a seed: kills and restarts nodes (keeping or
 * losing their data), pauses nodes (SIGSTOP/SIGCONT), slows them, and pauses client JVMs
 * for longer than their TTL. At most two nodes are disturbed at once, counting a
 * restarted node until its restart guard has let it back, so a quorum of the five always
 * exists.
 */
final class Nemesis {

	private static final int MAX_DISTURBED = 2;

	private final RedisFleet fleet;

	private final List<Process> clients;

	private final Random random;

	private final Duration ttl;

	private final Duration guard;

	private final long[] disturbedUntil;

	private final Map<String, AtomicInteger> faults = new ConcurrentHashMap<>();

	private final ScheduledExecutorService endings = Executors.newSingleThreadScheduledExecutor();

	Nemesis(RedisFleet fleet, List<Process> clients, long seed, Duration ttl, Duration maxTtl) {
		this.fleet = fleet;
		this.clients = clients;
		this.random = new Random(seed);
		this.ttl = ttl;
		this.guard = maxTtl.plusSeconds(1);
		this.disturbedUntil = new long[fleet.size()];
	}

	void run(Duration duration) throws InterruptedException {
		long end = System.nanoTime() + duration.toNanos();
		try {
			while (System.nanoTime() < end) {
				Thread.sleep(300 + this.random.nextInt(500));
				int kind = this.random.nextInt(5);
				if (kind == 4) {
					pauseClient();
					continue;
				}
				int node = this.random.nextInt(this.fleet.size());
				long now = System.nanoTime();
				if (this.disturbedUntil[node] > now || disturbed(now) >= MAX_DISTURBED) {
					count("skipped (quorum protected)");
					continue;
				}
				RedisNode target = this.fleet.node(node);
				System.out
					.println("NEMESIS " + System.nanoTime() + " node " + node + " " + target.uri() + " kind " + kind);
				switch (kind) {
					case 0 -> {
						target.restart(true);
						this.disturbedUntil[node] = System.nanoTime() + this.guard.toNanos();
						count("restart keeping data");
					}
					case 1 -> {
						target.restart(false);
						this.disturbedUntil[node] = System.nanoTime() + this.guard.toNanos();
						count("restart losing data");
					}
					case 2 -> {
						long pause = 300 + this.random.nextInt(1200);
						target.pause();
						this.disturbedUntil[node] = now + TimeUnit.MILLISECONDS.toNanos(pause + 200);
						this.endings.schedule(target::resume, pause, TimeUnit.MILLISECONDS);
						count("node paused");
					}
					default -> {
						long slow = 1000 + this.random.nextInt(1000);
						target.slow(Duration.ofMillis(50 + this.random.nextInt(100)));
						this.disturbedUntil[node] = now + TimeUnit.MILLISECONDS.toNanos(slow + 500);
						this.endings.schedule(target::unslow, slow, TimeUnit.MILLISECONDS);
						count("node slowed");
					}
				}
			}
		}
		finally {
			this.endings.shutdown();
			this.endings.awaitTermination(1, TimeUnit.MINUTES);
			for (Process client : this.clients) {
				signal(client, "CONT");
			}
			// no flush: the clients are still running
			this.fleet.undoFaults();
		}
	}

	private void pauseClient() {
		Process client = this.clients.get(this.random.nextInt(this.clients.size()));
		long pause = this.ttl.toMillis() * 3 / 2 + this.random.nextInt((int) this.ttl.toMillis());
		signal(client, "STOP");
		this.endings.schedule(() -> signal(client, "CONT"), pause, TimeUnit.MILLISECONDS);
		count("client JVM paused past its TTL");
	}

	private int disturbed(long now) {
		int count = 0;
		for (long until : this.disturbedUntil) {
			if (until > now) {
				count++;
			}
		}
		return count;
	}

	private void count(String fault) {
		System.out.println("NEMESIS " + System.nanoTime() + " " + fault);
		this.faults.computeIfAbsent(fault, (name) -> new AtomicInteger()).incrementAndGet();
	}

	Map<String, AtomicInteger> faults() {
		return this.faults;
	}

	static void signal(Process process, String signal) {
		try {
			new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).inheritIO()
				.start()
				.waitFor(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed", ex);
		}
	}

}
