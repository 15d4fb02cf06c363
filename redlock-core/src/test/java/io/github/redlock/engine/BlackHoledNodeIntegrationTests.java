package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.FleetProxy;
import io.github.redlock.embedded.NodeProxy;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node that drops packets without resetting the connection (a black hole: its
 * {@link NodeProxy} is {@link NodeProxy#cut() cut} and held, so the connection stays open
 * and nothing comes back). Five nodes, the fifth behind the proxy, the default 100ms node
 * timeout.
 * <p>
 * Before the fix all three tests failed (run on the engine of commit 32f82b7, on a 2-core
 * machine at a load average near 30): the node kept counting toward quorums
 * ({@code usableNodes()} stayed 5, so the second and third tests timed out waiting for 4)
 * and got every command, and each one, timed out, stayed in Lettuce's command stack until
 * a reply that never came: 480 commands pending 3 s into the fault and 928 three seconds
 * later (growth 448, at most 100 allowed), while the 32 threads managed only 470
 * acquisitions in the 6 s, each release waiting out the node's timeout. Now the node is
 * suspected after three timeouts in a row with nothing read from it for three node
 * timeouts, falls silent when a {@code PING} then goes unanswered for a second, counts
 * toward no quorum and is sent no lock command until a {@code PING} answers: what is
 * pending stops growing (264, then 264, with 13,414 acquisitions in the 6 s on the same
 * machine), and the node rejoins once the link heals or the server resumes.
 */
class BlackHoledNodeIntegrationTests {

	private static final int THREADS = 32;

	private static final Duration TTL = Duration.ofSeconds(3);

	/**
	 * How many more commands may be pending 3 s after than 1 s after the node was found
	 * silent: the probes (about one a second) with room to spare.
	 */
	private static final int GROWTH_ALLOWED = 100;

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	@Test
	void commandsPendingOnABlackHoledNodeStopGrowingWhileTheOtherNodesKeepLocking() throws Exception {
		FleetProxy proxies = fleet.fleet().proxy("black-hole");
		NodeProxy link = proxies.node(4);
		try (ChannelGauge gauge = new ChannelGauge(); RedlockRegistry registry = registry(gauge, link, false).start()) {
			Load load = new Load(registry);
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> load.acquired.sum() > 100);
				link.cut();
				load.acquired.reset();
				// found silent within about 1.5s on an idle machine (300ms without a
				// reply, 100ms, a 1s probe); what is pending is measured from then on
				await().atMost(Duration.ofSeconds(30)).until(() -> registry.usableNodes() == 4);
				Thread.sleep(1000);
				ChannelGauge.Pending early = gauge.pending(link.port());
				Thread.sleep(3000);
				ChannelGauge.Pending late = gauge.pending(link.port());
				long acquiredDuringFault = load.acquired.sum();
				System.out.printf(
						"black-holed node: %d commands / %d outbound bytes pending 1s after it fell silent, %d / %d 3s"
								+ " later; %d acquisitions meanwhile, %d failed; usable nodes %d%n",
						early.commands(), early.outboundBytes(), late.commands(), late.outboundBytes(),
						acquiredDuringFault, load.failed.sum(), registry.usableNodes());
				assertThat(late.connections()).as("connections to the black-holed node").isGreaterThan(0);
				assertThat(late.commands() - early.commands()).as("growth of the commands pending")
					.isLessThanOrEqualTo(GROWTH_ALLOWED);
				assertThat(acquiredDuringFault).as("acquisitions on the other four nodes").isPositive();
				assertThat(registry.usableNodes()).isEqualTo(4);
			}
			finally {
				load.stop();
				link.heal();
			}
		}
	}

	@Test
	void aBlackHoledNodeCountsTowardNoQuorumThenRejoinsOnceItAnswersAgain() throws Exception {
		FleetProxy proxies = fleet.fleet().proxy("black-hole");
		NodeProxy link = proxies.node(4);
		// the restart guard on: the node is kept out as new at first, and its silence
		// must not bypass the guard's check
		try (ChannelGauge gauge = new ChannelGauge(); RedlockRegistry registry = registry(gauge, link, true).start()) {
			// locking makes a node whose first check timed out on this loaded machine be
			// checked again
			await().atMost(Duration.ofSeconds(30)).until(() -> {
				try {
					registry.tryAcquire("warm-up", TTL).ifPresent(Lease::release);
				}
				catch (LockAcquisitionException ex) {
					// not every node counts yet: the next round tries again
				}
				return registry.usableNodes() == 5;
			});
			link.cut();
			try {
				// a few locks, each timing out on the fifth node
				for (int i = 0; i < 10; i++) {
					try (Lease lease = registry.acquire("silent-" + i, TTL, Duration.ofSeconds(5))) {
						assertThat(lease.isHeld()).isTrue();
					}
				}
				await().atMost(Duration.ofSeconds(10)).until(() -> registry.usableNodes() == 4);
				NodeStatus status = registry.checkNodes().get(4);
				assertThat(status.usable()).isFalse();
				assertThat(status.problem()).contains("silent: 3 timeouts in a row", "no answer to a probe");
			}
			finally {
				link.heal();
			}
			await().atMost(Duration.ofSeconds(30)).until(() -> registry.usableNodes() == 5);
			try (Lease lease = registry.acquire("rejoined", TTL, Duration.ofSeconds(5))) {
				// the acquisition returns at a quorum; the fifth node's answer may follow
				await().atMost(Duration.ofSeconds(10))
					.until(() -> fleet.node(4).call("GET", "redlock:lock:{rejoined}") != null);
			}
		}
	}

	@Test
	void aFrozenNodeIsSilentUntilItResumes() throws Exception {
		// SIGSTOP: the kernel still takes what is sent, the server answers nothing
		try (RedlockRegistry registry = TestRegistries.builder(fleet).maxTtl(TTL).defaultTtl(TTL).build().start()) {
			fleet.node(4).pause();
			try {
				for (int i = 0; i < 100 && registry.usableNodes() == 5; i++) {
					try (Lease lease = registry.acquire("frozen-" + i, TTL, Duration.ofSeconds(5))) {
						assertThat(lease.isHeld()).isTrue();
					}
				}
				await().atMost(Duration.ofSeconds(10)).until(() -> registry.usableNodes() == 4);
			}
			finally {
				fleet.node(4).resume();
			}
			await().atMost(Duration.ofSeconds(30)).until(() -> registry.usableNodes() == 5);
			try (Lease lease = registry.acquire("thawed", TTL, Duration.ofSeconds(5))) {
				// the acquisition returns at a quorum; the fifth node's answer may follow
				await().atMost(Duration.ofSeconds(10))
					.until(() -> fleet.node(4).call("GET", "redlock:lock:{thawed}") != null);
			}
		}
	}

	private static RedlockRegistry registry(ChannelGauge gauge, NodeProxy link, boolean restartGuard) {
		List<String> nodes = new ArrayList<>(fleet.uris().subList(0, 4));
		nodes.add(link.uri());
		return RedlockRegistry.builder()
			.nodes(nodes)
			.clientResources(gauge.resources())
			.restartGuard(restartGuard)
			// with the guard on, a fresh node sits out for this long: kept short
			.maxTtl(TTL)
			.defaultTtl(TTL)
			.build();
	}

	/**
	 * Threads that each take and release a lock of their own as fast as they can.
	 */
	private static final class Load {

		private final LongAdder acquired = new LongAdder();

		private final LongAdder failed = new LongAdder();

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final List<Thread> threads = new ArrayList<>();

		Load(RedlockRegistry registry) {
			for (int t = 0; t < THREADS; t++) {
				String key = "load:" + t;
				Thread thread = new Thread(() -> {
					while (this.running.get()) {
						Optional<Lease> lease = registry.tryAcquire(key, TTL);
						if (lease.isPresent()) {
							lease.get().release();
							this.acquired.increment();
						}
						else {
							this.failed.increment();
						}
					}
				}, "black-hole-load-" + t);
				thread.setDaemon(true);
				thread.start();
				this.threads.add(thread);
			}
		}

		void stop() throws InterruptedException {
			this.running.set(false);
			for (Thread thread : this.threads) {
				thread.join(TimeUnit.SECONDS.toMillis(30));
			}
		}

	}

}
