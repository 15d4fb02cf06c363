package io.github.redlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockLostException;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedlockRegistry#revoke}: an operator takes a lease from a holder that hangs; and
 * {@link RegistryListener#nodeChanged}, {@link RedlockRegistry#nodeStates()}: each node's
 * standing toward the quorum, told once per change.
 */
class RevokeAndNodeEventsIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final RegistryListener recorder = new RegistryListener() {

		@Override
		public void lost(String key, Duration held, LockLostException cause) {
			RevokeAndNodeEventsIntegrationTests.this.events.add("lost " + key + ": " + cause.getMessage());
		}

		@Override
		public void nodeChanged(String node, NodeState state, String detail) {
			RevokeAndNodeEventsIntegrationTests.this.events.add(state + " " + node + ": " + detail);
		}

	};

	@Test
	void aRevokedLeaseFailsItsRunningWorkAndAnotherRegistryAcquiresAtOnce() throws Exception {
		RedlockRegistry holder = this.registries.start(TestRegistries.builder(fleet).listener(this.recorder));
		RedlockRegistry other = this.registries.start(TestRegistries.builder(fleet));
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		CompletableFuture<String> work = CompletableFuture.supplyAsync(() -> {
			try {
				return holder.executeLocked("stuck", Duration.ofSeconds(30), Duration.ofSeconds(5), () -> {
					running.countDown();
					finish.await(30, TimeUnit.SECONDS);
					return "finished";
				});
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
		assertThat(other.tryAcquire("stuck", Duration.ofSeconds(5))).isEmpty();
		assertThat(holder.revoke("stuck", "revoked by a test")).isEqualTo(1);
		assertThat(holder.heldLeases()).isZero();
		try (Lease taken = other.tryAcquire("stuck", Duration.ofSeconds(5)).orElseThrow()) {
			assertThat(taken.isHeld()).isTrue();
		}
		finish.countDown();
		assertThatExceptionOfType(Exception.class).isThrownBy(() -> work.get(20, TimeUnit.SECONDS))
			.havingRootCause()
			.isInstanceOf(LockLostException.class)
			.withMessageContaining("revoked by a test");
		assertThat(this.events).singleElement().asString().startsWith("lost stuck: ").contains("revoked by a test");
	}

	@Test
	void revokingAKeyThisRegistryDoesNotHoldTouchesNothing() throws Exception {
		RedlockRegistry holder = this.registries.start(TestRegistries.builder(fleet));
		RedlockRegistry other = this.registries.start(TestRegistries.builder(fleet));
		try (Lease lease = other.acquire("elsewhere", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
			assertThat(holder.revoke("elsewhere", "not mine")).isZero();
			assertThat(holder.revoke("unknown", "nobody's")).isZero();
			assertThat(lease.isHeld()).isTrue();
			assertThat(holder.inspect("elsewhere").isHeldAnywhere()).isTrue();
		}
	}

	@Test
	void aNodeThatGoesDownAndComesBackEmptyIsToldDownThenOutThenUsable() {
		RedlockRegistry registry = this.registries.start(TestRegistries.builder(fleet)
			.restartGuard(true)
			.maxTtl(Duration.ofSeconds(2))
			.defaultTtl(Duration.ofSeconds(1))
			.listener(this.recorder));
		String node = "redis://127.0.0.1:" + fleet.node(2).port();
		await().atMost(Duration.ofSeconds(20))
			.until(() -> registry.nodeStates().values().stream().allMatch(NodeState.USABLE::equals));
		assertThat(registry.nodeStates()).containsKey(node);
		this.events.clear();
		fleet.node(2).kill();
		await().atMost(Duration.ofSeconds(20)).until(() -> registry.nodeStates().get(node) == NodeState.DOWN);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.events.contains("DOWN " + node + ": disconnected; reconnecting"));
		fleet.node(2).restart(false);
		// a node is checked for a restart when next used: locking goes on meanwhile
		await().atMost(Duration.ofSeconds(60)).until(() -> {
			registry.tryAcquire("traffic", Duration.ofSeconds(1)).ifPresent(Lease::release);
			return this.events.contains("USABLE " + node + ": counts toward quorums again");
		});
		assertThat(this.events.get(0)).isEqualTo("DOWN " + node + ": disconnected; reconnecting");
		assertThat(this.events).as("the guard's entry told, then the node's return, last")
			.anyMatch((event) -> event.startsWith("OUT " + node + ": kept out by the restart guard: lost its data"))
			.last()
			.isEqualTo("USABLE " + node + ": counts toward quorums again");
		assertThat(registry.nodeStates().get(node)).isEqualTo(NodeState.USABLE);
	}

}
