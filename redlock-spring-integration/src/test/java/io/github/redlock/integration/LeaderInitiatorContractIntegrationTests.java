package io.github.redlock.integration;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Integration's {@code LockRegistryLeaderInitiator} contract over a
 * {@link RedlockLockRegistry} (issue 24): the cases of Spring Integration's
 * {@code LockRegistryLeaderInitiatorTests} that exercise a lock registry, and
 * {@code RedisLockRegistryLeaderInitiatorTests}, written anew with their numbers (read at
 * spring-projects/spring-integration f369e899dd), against three real redis-server nodes.
 * The registry is configured as a user gets it ({@code new RedlockLockRegistry(registry)}
 * over default settings; the restart guard is off because the test starts the nodes) and
 * the initiator keeps its defaults (heartbeat 500 ms, busy wait 50 ms).
 * <p>
 * Not ported: {@code competingWithLock}, {@code testGracefulLeaderSelectorExit} and
 * {@code testExceptionFromLock} drive the initiator with mocked {@code Lock}s and test
 * the initiator alone, not a registry.
 */
class LeaderInitiatorContractIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final CountDownLatch granted = new CountDownLatch(1);

	private final CountDownLatch revoked = new CountDownLatch(1);

	private RedlockRegistry redlock;

	private RedlockLockRegistry registry;

	private LockRegistryLeaderInitiator initiator;

	@BeforeEach
	void init() {
		this.redlock = RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false).build().start();
		this.registry = new RedlockLockRegistry(this.redlock);
		this.initiator = new LockRegistryLeaderInitiator(this.registry, new DefaultCandidate());
		this.initiator.setLeaderEventPublisher(new CountingPublisher(this.granted, this.revoked));
	}

	@AfterEach
	void close() {
		this.initiator.stop();
		this.redlock.close();
	}

	// follows LockRegistryLeaderInitiatorTests.startAndStop
	@Test
	void startAndStop() throws Exception {
		assertThat(this.initiator.getContext().isLeader()).isFalse();
		this.initiator.start();
		assertThat(this.initiator.isRunning()).isTrue();
		assertThat(this.granted.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.initiator.getContext().isLeader()).isTrue();
		Thread.sleep(200L); // upstream's: still leading a moment later
		assertThat(this.initiator.getContext().isLeader()).isTrue();
		this.initiator.stop();
		assertThat(this.revoked.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.initiator.getContext().isLeader()).isFalse();
	}

	// follows LockRegistryLeaderInitiatorTests.yield
	@Test
	void yield() throws Exception {
		assertThat(this.initiator.getContext().isLeader()).isFalse();
		this.initiator.start();
		assertThat(this.initiator.isRunning()).isTrue();
		assertThat(this.granted.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.initiator.getContext().isLeader()).isTrue();
		this.initiator.getContext().yield();
		assertThat(this.revoked.await(10, TimeUnit.SECONDS)).isTrue();
		this.initiator.stop();
	}

	// follows LockRegistryLeaderInitiatorTests.competing
	@Test
	void competing() throws Exception {
		LockRegistryLeaderInitiator another = new LockRegistryLeaderInitiator(this.registry, new DefaultCandidate());
		CountDownLatch other = new CountDownLatch(1);
		another.setLeaderEventPublisher(new CountingPublisher(other));
		try {
			this.initiator.start();
			assertThat(this.granted.await(20, TimeUnit.SECONDS)).isTrue();
			another.start();
			this.initiator.stop();
			assertThat(other.await(20, TimeUnit.SECONDS)).isTrue();
			assertThat(another.getContext().isLeader()).isTrue();
		}
		finally {
			another.stop();
		}
	}

	// follows LockRegistryLeaderInitiatorTests.competingWithErrorPublish
	@Test
	void competingWithErrorPublish() throws Exception {
		LockRegistryLeaderInitiator another = new LockRegistryLeaderInitiator(this.registry, new DefaultCandidate());
		CountDownLatch other = new CountDownLatch(1);
		CountDownLatch failedAcquireLatch = new CountDownLatch(1);
		another.setLeaderEventPublisher(new CountingPublisher(other, new CountDownLatch(1), failedAcquireLatch));
		another.setPublishFailedEvents(true);
		try {
			this.initiator.start();
			assertThat(this.granted.await(20, TimeUnit.SECONDS)).isTrue();
			another.start();
			assertThat(failedAcquireLatch.await(20, TimeUnit.SECONDS)).isTrue();
			this.initiator.stop();
			assertThat(other.await(20, TimeUnit.SECONDS)).isTrue();
			assertThat(another.getContext().isLeader()).isTrue();
		}
		finally {
			another.stop();
		}
	}

	// follows LockRegistryLeaderInitiatorTests.testExceptionFromEvent
	@Test
	void testExceptionFromEvent() throws Exception {
		CountDownLatch onGranted = new CountDownLatch(1);
		this.initiator.setLeaderEventPublisher(new DefaultLeaderEventPublisher() {

			@Override
			public void publishOnGranted(Object source, Context context, String role) {
				try {
					throw new RuntimeException("intentional");
				}
				finally {
					onGranted.countDown();
				}
			}

		});
		this.initiator.start();
		assertThat(onGranted.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.initiator.getContext().isLeader()).isTrue();
		this.initiator.stop();
	}

	// follows RedisLockRegistryLeaderInitiatorTests.testDistributedLeaderElection: two
	// initiators on one registry, each yielding in turn with a 10 s busy wait so that
	// the other takes over
	@Test
	void testDistributedLeaderElection() throws Exception {
		this.registry.expireUnusedOlderThan(-1);
		CountDownLatch granted = new CountDownLatch(1);
		CountingPublisher countingPublisher = new CountingPublisher(granted);
		List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(this.registry,
					new DefaultCandidate("foo:" + i, "bar"));
			initiator.setTaskExecutor(new SimpleAsyncTaskExecutor("lock-leadership-" + i + "-"));
			initiator.setLeaderEventPublisher(countingPublisher);
			initiators.add(initiator);
		}
		try {
			for (LockRegistryLeaderInitiator initiator : initiators) {
				initiator.start();
			}
			assertThat(granted.await(60, TimeUnit.SECONDS)).isTrue();
			LockRegistryLeaderInitiator initiator1 = countingPublisher.initiator;
			LockRegistryLeaderInitiator initiator2 = (initiators.get(0) != initiator1) ? initiators.get(0)
					: initiators.get(1);
			assertThat(initiator1.getContext().isLeader()).isTrue();
			assertThat(initiator2.getContext().isLeader()).isFalse();

			CountDownLatch granted1 = new CountDownLatch(1);
			CountDownLatch granted2 = new CountDownLatch(1);
			CountDownLatch revoked1 = new CountDownLatch(1);
			CountDownLatch revoked2 = new CountDownLatch(1);
			initiator1.setLeaderEventPublisher(new CountingPublisher(granted1, revoked1, new CountDownLatch(1)));
			initiator2.setLeaderEventPublisher(new CountingPublisher(granted2, revoked2, new CountDownLatch(1)));

			initiator1.setBusyWaitMillis(10000);
			Thread.sleep(100); // upstream's
			initiator1.getContext().yield();
			assertThat(revoked1.await(60, TimeUnit.SECONDS)).isTrue();
			assertThat(granted2.await(60, TimeUnit.SECONDS)).isTrue();
			assertThat(initiator2.getContext().isLeader()).isTrue();
			assertThat(initiator1.getContext().isLeader()).isFalse();

			initiator1.setBusyWaitMillis(LockRegistryLeaderInitiator.DEFAULT_BUSY_WAIT_TIME);
			initiator2.setBusyWaitMillis(10000);
			Thread.sleep(100); // upstream's
			initiator2.getContext().yield();
			assertThat(revoked2.await(60, TimeUnit.SECONDS)).isTrue();
			assertThat(granted1.await(60, TimeUnit.SECONDS)).isTrue();
			assertThat(initiator1.getContext().isLeader()).isTrue();
			assertThat(initiator2.getContext().isLeader()).isFalse();

			initiator2.stop();
			CountDownLatch revoked11 = new CountDownLatch(1);
			initiator1.setLeaderEventPublisher(
					new CountingPublisher(new CountDownLatch(1), revoked11, new CountDownLatch(1)));
			initiator1.stop();
			assertThat(revoked11.await(60, TimeUnit.SECONDS)).isTrue();
			assertThat(initiator1.getContext().isLeader()).isFalse();
		}
		finally {
			initiators.forEach(LockRegistryLeaderInitiator::stop);
		}
	}

	/**
	 * Counts the initiator's events down on latches, and remembers the last granted.
	 */
	private static final class CountingPublisher implements LeaderEventPublisher {

		private final CountDownLatch granted;

		private final CountDownLatch revoked;

		private final CountDownLatch acquireFailed;

		private volatile LockRegistryLeaderInitiator initiator;

		CountingPublisher(CountDownLatch granted) {
			this(granted, new CountDownLatch(1), new CountDownLatch(1));
		}

		CountingPublisher(CountDownLatch granted, CountDownLatch revoked) {
			this(granted, revoked, new CountDownLatch(1));
		}

		CountingPublisher(CountDownLatch granted, CountDownLatch revoked, CountDownLatch acquireFailed) {
			this.granted = granted;
			this.revoked = revoked;
			this.acquireFailed = acquireFailed;
		}

		@Override
		public void publishOnGranted(Object source, Context context, String role) {
			this.initiator = (LockRegistryLeaderInitiator) source;
			this.granted.countDown();
		}

		@Override
		public void publishOnRevoked(Object source, Context context, String role) {
			this.revoked.countDown();
		}

		@Override
		public void publishOnFailedToAcquire(Object source, Context context, String role) {
			this.acquireFailed.countDown();
		}

	}

}
