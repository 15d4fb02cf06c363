package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.Lease;
import io.github.redlock.LockLostException;
import io.github.redlock.LockRegistry;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.SmartLifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A context stop (or a CRaC checkpoint, which stops the lifecycle beans the same way)
 * closes the registry's node connections, and a start after it locks again through the
 * same beans (issue 25, item 11).
 * <p>
 * Failing before RedlockRegistryLifecycle.stop() stopped the registry:
 * {@code contextStopClosesTheNodeConnectionsAndStartLocksAgainThroughTheSameBeans} timed
 * out waiting for the nodes' connections to close (each node still had its lock
 * connection from the registry after the stop), and
 * {@code aLeaseHeldAtStopIsReleasedOnTheNodesAndNoLockIsAcquiredUntilStart} found the
 * lease still held and its key on the nodes after the stop.
 */
class RedlockRegistryLifecycleIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
		.withBean(Job.class)
		.withPropertyValues(FleetProperties.of(fleet, "redlock.key-prefix=cycle:", "redlock.node-timeout=200ms"));

	@Test
	void contextStopClosesTheNodeConnectionsAndStartLocksAgainThroughTheSameBeans() {
		this.contextRunner.run((context) -> {
			LockRegistry locks = context.getBean(LockRegistry.class);
			locks.acquire("before", Duration.ofSeconds(5), Duration.ofSeconds(2)).close();
			for (RedisNode node : fleet.fleet().nodes()) {
				assertThat(registryConnections(node)).as("connections to %s", node).isPositive();
			}
			context.stop();
			assertThat(context.getBean(RedlockRegistryLifecycle.class).isRunning()).isFalse();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(fleet.fleet().nodes()).allSatisfy(
						(node) -> assertThat(registryConnections(node)).as("connections to %s", node).isZero()));
			context.start();
			assertThat(context.getBean(LockRegistry.class)).isSameAs(locks);
			try (Lease lease = locks.acquire("after", Duration.ofSeconds(5), Duration.ofSeconds(2))) {
				assertThat(lease.isHeld()).isTrue();
				assertThat(fleet.fleet().nodes()).filteredOn((node) -> node.call("GET", "cycle:lock:{after}") != null)
					.hasSizeGreaterThanOrEqualTo(2);
			}
			// the annotation, through the advisor made before the stop
			Job job = context.getBean(Job.class);
			assertThat(job.run()).isGreaterThanOrEqualTo(2);
			assertThat(fleet.node(0).call("GET", "cycle:lock:{job}")).isNull();
		});
	}

	@Test
	void aLeaseHeldAtStopIsReleasedOnTheNodesAndNoLockIsAcquiredUntilStart() {
		this.contextRunner.run((context) -> {
			LockRegistry locks = context.getBean(LockRegistry.class);
			Lease held = locks.acquire("held", Duration.ofSeconds(30), Duration.ofSeconds(2));
			assertThat(fleet.fleet().nodes()).filteredOn((node) -> node.call("GET", "cycle:lock:{held}") != null)
				.hasSizeGreaterThanOrEqualTo(2);
			context.stop();
			assertThat(held.isHeld()).isFalse();
			for (RedisNode node : fleet.fleet().nodes()) {
				assertThat(node.call("GET", "cycle:lock:{held}")).as("the lock on %s", node).isNull();
			}
			assertThatIllegalStateException()
				.isThrownBy(() -> locks.acquire("held", Duration.ofSeconds(5), Duration.ofSeconds(1)))
				.withMessageContaining("stopped")
				.withMessageContaining("start()");
			held.close(); // never throws for a lease released already
			context.start();
			try (Lease again = locks.acquire("held", Duration.ofSeconds(5), Duration.ofSeconds(2))) {
				assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
			}
		});
	}

	@Test
	void workRunningUnderALockAtStopIsToldItLostItAndTheLockIsLeftToExpire() {
		this.contextRunner.run((context) -> {
			LockRegistry locks = context.getBean(LockRegistry.class);
			CountDownLatch running = new CountDownLatch(1);
			AtomicReference<Throwable> thrown = new AtomicReference<>();
			Thread worker = new Thread(() -> {
				try {
					locks.executeLocked("busy", Duration.ofSeconds(30), Duration.ofSeconds(2), () -> {
						running.countDown();
						Thread.sleep(60_000); // interrupted below
						return null;
					});
				}
				catch (Exception ex) {
					thrown.set(ex);
				}
			});
			worker.start();
			try {
				assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
				context.stop();
				// deleting it would let another instance start the same work now
				assertThat(fleet.fleet().nodes()).filteredOn((node) -> node.call("GET", "cycle:lock:{busy}") != null)
					.hasSizeGreaterThanOrEqualTo(2);
			}
			finally {
				worker.interrupt();
				worker.join(10_000);
				for (RedisNode node : fleet.fleet().nodes()) {
					node.call("DEL", "cycle:lock:{busy}");
				}
			}
			assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
			assertThat(thrown.get().getSuppressed()).singleElement()
				.isInstanceOf(LockLostException.class)
				.extracting(Throwable::getMessage)
				.asString()
				.contains("stopped");
		});
	}

	/**
	 * A request that finishes during the web server's graceful shutdown still locks: the
	 * registry stops after it. Failed with the lifecycle at the default phase (stopped
	 * first): "This LockRegistry is stopped (its application context was stopped ...".
	 */
	@Test
	void theRegistryStopsAfterTheWebServersGracefulShutdown() {
		this.contextRunner.withBean(GracefulShutdown.class).run((context) -> {
			GracefulShutdown shutdown = context.getBean(GracefulShutdown.class);
			context.stop();
			assertThat(shutdown.failure).isNull();
			assertThat(shutdown.fencingToken).isPositive();
			context.start();
			assertThat(shutdown.isRunning()).isTrue();
		});
	}

	/**
	 * Counts the connections to a node but the one asking.
	 */
	private static long registryConnections(RedisNode node) {
		String clients = (String) node.call("CLIENT", "LIST");
		return clients.lines().filter((line) -> !line.contains(" cmd=client")).count();
	}

	/**
	 * Stands for Boot's {@code WebServerGracefulShutdownLifecycle}: a request that takes
	 * a lock while the server shuts down gracefully.
	 */
	static class GracefulShutdown implements SmartLifecycle {

		private final LockRegistry locks;

		private volatile boolean running;

		volatile long fencingToken;

		volatile Exception failure;

		GracefulShutdown(LockRegistry locks) {
			this.locks = locks;
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			try (Lease lease = this.locks.acquire("last-request", Duration.ofSeconds(5), Duration.ofSeconds(2))) {
				this.fencingToken = lease.fencingToken();
			}
			catch (Exception ex) {
				this.failure = ex;
			}
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE;
		}

	}

	static class Job {

		@DistributedLock(key = "'job'", ttl = "5s", waitTime = "2s")
		public long run() {
			return fleet.fleet()
				.nodes()
				.stream()
				.filter((node) -> node.call("GET", "cycle:lock:{job}") != null)
				.count();
		}

	}

}
