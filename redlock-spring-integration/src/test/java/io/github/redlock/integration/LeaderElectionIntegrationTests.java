package io.github.redlock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader election with Spring Integration's own {@link LockRegistryLeaderInitiator} on
 * two {@link RedlockLockRegistry} instances, each over its own {@link RedlockRegistry}
 * (two processes) and one fleet of three real redis-server nodes. A monitor samples both
 * initiators all along and counts any moment when both think they lead.
 */
class LeaderElectionIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private static final Duration TTL = Duration.ofMillis(1500);

	private static final Duration PATIENCE = Duration.ofSeconds(20);

	private final List<String> events = Collections.synchronizedList(new ArrayList<>());

	private final List<Long> grantedTokens = Collections.synchronizedList(new ArrayList<>());

	private final List<Instance> instances = new ArrayList<>();

	private final AtomicInteger overlaps = new AtomicInteger();

	private volatile boolean monitoring = true;

	private Thread monitor;

	@AfterEach
	void stop() throws InterruptedException {
		this.monitoring = false;
		if (this.monitor != null) {
			this.monitor.join(10_000);
		}
		for (Instance instance : this.instances) {
			instance.close();
		}
	}

	@Test
	void oneLeaderAtATimeAndYieldingHandsOverToTheOther() {
		Instance a = start("a");
		Instance b = start("b");
		monitorOverlaps(a, b);
		Instance leader = awaitOneLeader(a, b);
		Instance follower = (leader == a) ? b : a;
		leader.initiator.getContext().yield();
		await().atMost(PATIENCE).until(() -> follower.isLeader() && !leader.isLeader());
		follower.initiator.getContext().yield();
		await().atMost(PATIENCE).until(() -> leader.isLeader() && !follower.isLeader());
		// Spring Integration's LeaderSelector unlocks before it calls onRevoked, so the
		// other instance's onGranted can come between the two: CI once recorded
		// [granted a, granted b, revoked a, revoked b, granted a]. What holds is the
		// order of the grants, and each instance's own granted/revoked in turn
		assertThat(this.events.stream().filter((event) -> event.startsWith("granted ")))
			.containsSubsequence("granted " + leader.id, "granted " + follower.id, "granted " + leader.id);
		assertThat(eventsOf(leader)).startsWith("granted", "revoked", "granted");
		assertThat(eventsOf(follower)).startsWith("granted", "revoked");
		assertThat(this.grantedTokens).as("each new leader has a greater fencing token")
			.isSorted()
			.doesNotHaveDuplicates();
		assertThat(this.overlaps).hasValue(0);
	}

	@Test
	void stoppingTheLeaderElectsTheOther() {
		Instance a = start("a");
		Instance b = start("b");
		monitorOverlaps(a, b);
		Instance leader = awaitOneLeader(a, b);
		Instance follower = (leader == a) ? b : a;
		long stopped = System.nanoTime();
		leader.initiator.stop();
		await().atMost(PATIENCE).until(follower::isLeader);
		System.out.printf("Leadership passed to the other instance %d ms after the leader's initiator stopped%n",
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped));
		await().atMost(PATIENCE).until(() -> this.events.contains("revoked " + leader.id));
		assertThat(leader.isLeader()).isFalse();
		assertThat(this.overlaps).hasValue(0);
	}

	@Test
	void aMinorityOfNodesDownChangesNothing() throws InterruptedException {
		Instance a = start("a");
		Instance b = start("b");
		monitorOverlaps(a, b);
		Instance leader = awaitOneLeader(a, b);
		int eventsBefore = this.events.size();
		fleet.node(0).kill();
		Thread.sleep(TTL.multipliedBy(2).toMillis()); // heartbeats through more than a
														// TTL
		assertThat(leader.isLeader()).isTrue();
		assertThat(this.events).hasSize(eventsBefore);
		assertThat(this.overlaps).hasValue(0);
	}

	@Test
	void losingTheMajorityRevokesLeadershipUntilTheNodesReturn() throws InterruptedException {
		Instance a = start("a");
		Instance b = start("b");
		monitorOverlaps(a, b);
		Instance leader = awaitOneLeader(a, b);
		long token = this.grantedTokens.get(this.grantedTokens.size() - 1);
		long killed = System.nanoTime();
		fleet.node(0).kill();
		fleet.node(1).kill();
		await().atMost(PATIENCE).until(() -> this.events.contains("revoked " + leader.id));
		System.out.printf("Leadership revoked %d ms after a majority of nodes went down (TTL %d ms)%n",
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed), TTL.toMillis());
		Thread.sleep(TTL.toMillis());
		assertThat(a.isLeader() || b.isLeader()).as("no leader without a quorum").isFalse();
		fleet.node(0).start();
		fleet.node(1).start();
		Instance next = awaitOneLeader(a, b);
		assertThat(this.grantedTokens.get(this.grantedTokens.size() - 1)).isGreaterThan(token);
		assertThat(next.isLeader()).isTrue();
		assertThat(this.overlaps).hasValue(0);
	}

	@Test
	void aStalledLeaderLosesLeadershipOnceItsTtlPasses() throws InterruptedException {
		CountDownLatch stall = new CountDownLatch(1);
		Instance a = start("a", stall);
		await().atMost(PATIENCE).until(() -> this.events.contains("granted a"));
		long stalledAt = System.nanoTime();
		// a's candidate blocks in onGranted: its initiator no longer beats
		Instance b = start("b");
		await().atMost(PATIENCE).until(b::isLeader);
		System.out.printf("A stalled leader was replaced %d ms after it stalled (TTL %d ms)%n",
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stalledAt), TTL.toMillis());
		assertThat(this.grantedTokens).hasSize(2).isSorted().doesNotHaveDuplicates();
		stall.countDown();
		await().atMost(PATIENCE).until(() -> this.events.contains("revoked a"));
		assertThat(a.isLeader()).isFalse();
		assertThat(b.isLeader()).isTrue();
		assertThat(this.events).containsExactly("granted a", "granted b", "revoked a");
	}

	private List<String> eventsOf(Instance instance) {
		synchronized (this.events) {
			return this.events.stream()
				.filter((event) -> event.endsWith(" " + instance.id))
				.map((event) -> event.substring(0, event.indexOf(' ')))
				.toList();
		}
	}

	private Instance start(String id) {
		return start(id, null);
	}

	private Instance start(String id, CountDownLatch stall) {
		Instance instance = new Instance(id, stall);
		this.instances.add(instance);
		instance.initiator.start();
		return instance;
	}

	private Instance awaitOneLeader(Instance a, Instance b) {
		await().atMost(PATIENCE).until(() -> a.isLeader() || b.isLeader());
		return a.isLeader() ? a : b;
	}

	private void monitorOverlaps(Instance a, Instance b) {
		this.monitor = new Thread(() -> {
			while (this.monitoring) {
				// read one side twice around the other: both leading at once for sure
				if ((a.isLeader() && b.isLeader() && a.isLeader()) || (b.isLeader() && a.isLeader() && b.isLeader())) {
					this.overlaps.incrementAndGet();
				}
				Thread.onSpinWait();
				try {
					Thread.sleep(1);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}, "leader-overlap-monitor");
		this.monitor.start();
	}

	/**
	 * One process: its own redlock registry, lock registry and leader initiator.
	 */
	private final class Instance implements AutoCloseable {

		private final String id;

		private final RedlockRegistry redlock;

		private final RedlockLockRegistry locks;

		private final LockRegistryLeaderInitiator initiator;

		Instance(String id, CountDownLatch stall) {
			this.id = id;
			this.redlock = RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false).build().start();
			this.locks = new RedlockLockRegistry(this.redlock, TTL);
			this.initiator = new LockRegistryLeaderInitiator(this.locks, new RecordingCandidate(id, stall));
			this.initiator.setHeartBeatMillis(300);
			this.initiator.setBusyWaitMillis(1000);
			this.initiator.setApplicationEventPublisher((event) -> {
			});
		}

		boolean isLeader() {
			return this.initiator.getContext().isLeader();
		}

		@Override
		public void close() {
			this.initiator.stop();
			this.redlock.close();
		}

		private final class RecordingCandidate implements Candidate {

			private final String id;

			private final CountDownLatch stall;

			RecordingCandidate(String id, CountDownLatch stall) {
				this.id = id;
				this.stall = stall;
			}

			@Override
			public String getRole() {
				return "leader";
			}

			@Override
			public String getId() {
				return this.id;
			}

			@Override
			public void onGranted(Context context) throws InterruptedException {
				// called on the initiator's thread, which holds the lock
				LeaderElectionIntegrationTests.this.grantedTokens
					.add(Instance.this.locks.obtain("leader").fencingToken());
				LeaderElectionIntegrationTests.this.events.add("granted " + this.id);
				if (this.stall != null) {
					this.stall.await();
				}
			}

			@Override
			public void onRevoked(Context context) {
				LeaderElectionIntegrationTests.this.events.add("revoked " + this.id);
			}

		}

	}

}
