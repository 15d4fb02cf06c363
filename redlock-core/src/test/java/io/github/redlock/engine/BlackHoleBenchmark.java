package io.github.redlock.engine;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import io.github.redlock.Lease;
import io.github.redlock.embedded.NodeProxy;
import io.github.redlock.embedded.RedisFleet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A harness, not a test: five local nodes, the fifth behind a {@link NodeProxy}, sixteen
 * threads each taking and releasing a lock of their own as fast as they can (issue 23,
 * "bounded everything under a black-holed node"). It measures the rate before the fault,
 * then cuts the proxy and holds it (the connection stays open, nothing comes back) for 60
 * s, then heals it. Every 5 s it prints the cycles per second, the commands and outbound
 * bytes pending toward the black-holed node (Lettuce's command stacks and Netty's
 * outbound buffers, {@link ChannelGauge}), the heap used, the live threads and the usable
 * nodes; at the end the rate during the fault as a share of the rate before. The proxy
 * runs in this JVM: what it holds for the node during the cut (every byte sent to it) is
 * in the heap figures too. Excluded from the normal build; run it with
 * {@code ./mvnw -pl redlock-core -am verify -Dbenchmarks -Dtest=BlackHoleBenchmark -Dsurefire.failIfNoSpecifiedTests=false}
 * ({@code -Dblackhole.seconds=N} for another fault length).
 */
@Tag("benchmark")
class BlackHoleBenchmark {

	private static final int THREADS = 16;

	private static final Duration WINDOW = Duration.ofSeconds(5);

	private static final Duration WARMUP = Duration.ofSeconds(10);

	private static final Duration BEFORE = Duration.ofSeconds(20);

	private static final Duration FAULT = Duration.ofSeconds(Long.getLong("blackhole.seconds", 60));

	private static final Duration AFTER = Duration.ofSeconds(15);

	private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

	private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

	@Test
	void aBlackHoledNodeAtFullLoad() throws Exception {
		try (RedisFleet fleet = RedisFleet.start(5);
				NodeProxy link = NodeProxy.start(fleet.node(4), "black-hole");
				ChannelGauge gauge = new ChannelGauge()) {
			List<String> nodes = new ArrayList<>(fleet.uris().subList(0, 4));
			nodes.add(link.uri());
			try (RedlockRegistry registry = TestRegistries.builder(nodes)
				.clientResources(gauge.resources())
				.build()
				.start()) {
				System.out.printf(
						"redis-server: %s; %d threads, one key each, acquire+release, 10s TTL,"
								+ " node timeout %s, %d cores, load average %.1f%n",
						io.github.redlock.embedded.RedisServerBinary.get(), THREADS, registry.settings().nodeTimeout(),
						Runtime.getRuntime().availableProcessors(),
						ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
				Load load = new Load(registry);
				try {
					Thread.sleep(WARMUP.toMillis());
					System.out.printf("%-22s %9s %7s %9s %12s %9s %8s %7s%n", "phase", "cycles/s", "failed", "pending",
							"outbound B", "heap MB", "threads", "usable");
					double before = phase("before", BEFORE, load, gauge, link, registry);
					long liveBefore = liveHeap();
					link.cut();
					double during = phase("black-holed", FAULT, load, gauge, link, registry);
					ChannelGauge.Pending end = gauge.pending(link.port());
					long liveDuring = liveHeap();
					link.heal();
					double after = phase("healed", AFTER, load, gauge, link, registry);
					System.out
						.printf("rate during the fault: %.0f cycles/s, %.0f%% of %.0f before (goal: at least 80%%);"
								+ " after healing %.0f%n", during, 100 * during / before, before, after);
					System.out.printf(
							"pending toward the black-holed node at the end of the fault: %d commands, %d"
									+ " outbound bytes; most in any window: %d commands%n",
							end.commands(), end.outboundBytes(), this.mostPending);
					System.out.printf("heap live after a full GC: %.1f MB before the fault, %.1f MB at its end%n",
							liveBefore / 1e6, liveDuring / 1e6);
				}
				finally {
					load.stop();
					link.heal();
				}
			}
		}
	}

	private int mostPending;

	/**
	 * Runs one phase in windows, printing each; returns the phase's cycles per second.
	 */
	private double phase(String name, Duration length, Load load, ChannelGauge gauge, NodeProxy link,
			RedlockRegistry registry) throws InterruptedException {
		long phaseStart = System.nanoTime();
		long phaseCycles = 0;
		long elapsed = 0;
		while (elapsed < length.toNanos()) {
			long windowStart = System.nanoTime();
			long cyclesBefore = load.acquired.sum();
			long failedBefore = load.failed.sum();
			Thread.sleep(Math.min(WINDOW.toMillis(), TimeUnit.NANOSECONDS.toMillis(length.toNanos() - elapsed)));
			long cycles = load.acquired.sum() - cyclesBefore;
			long failed = load.failed.sum() - failedBefore;
			double seconds = (System.nanoTime() - windowStart) / 1e9;
			phaseCycles += cycles;
			elapsed = System.nanoTime() - phaseStart;
			ChannelGauge.Pending pending = gauge.pending(link.port());
			this.mostPending = Math.max(this.mostPending, pending.commands());
			System.out.printf("%-14s %5.0fs %9.0f %7d %9d %12d %9.1f %8d %7d%n", name, elapsed / 1e9, cycles / seconds,
					failed, pending.commands(), pending.outboundBytes(),
					this.memory.getHeapMemoryUsage().getUsed() / 1e6, this.threads.getThreadCount(),
					registry.usableNodes());
		}
		return phaseCycles / ((System.nanoTime() - phaseStart) / 1e9);
	}

	private long liveHeap() {
		System.gc();
		return this.memory.getHeapMemoryUsage().getUsed();
	}

	/**
	 * Threads that each take and release a lock of their own as fast as they can.
	 */
	private static final class Load {

		private final LongAdder acquired = new LongAdder();

		private final LongAdder failed = new LongAdder();

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final List<Thread> workers = new ArrayList<>();

		Load(RedlockRegistry registry) {
			for (int t = 0; t < THREADS; t++) {
				String key = "bench:" + t;
				Thread thread = new Thread(() -> {
					while (this.running.get()) {
						Optional<Lease> lease = registry.tryAcquire(key, Duration.ofSeconds(10));
						if (lease.isPresent()) {
							lease.get().release();
							this.acquired.increment();
						}
						else {
							this.failed.increment();
						}
					}
				}, "black-hole-bench-" + t);
				thread.setDaemon(true);
				thread.start();
				this.workers.add(thread);
			}
		}

		void stop() throws InterruptedException {
			this.running.set(false);
			for (Thread thread : this.workers) {
				thread.join(TimeUnit.SECONDS.toMillis(30));
			}
		}

	}

}
