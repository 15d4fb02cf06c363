package io.github.redlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A registry stopped (an application context's stop, a CRaC checkpoint) closes its
 * connections and releases its leases, and locks again once started, as safely as a
 * registry that starts for the first time (issue 25, item 11).
 */
class StopStartIntegrationTests {

	private static final Duration MAX_TTL = Duration.ofSeconds(2);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	private RedlockRegistry registry(boolean guard) {
		RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.nodeTimeout(Duration.ofMillis(150))
			.maxTtl(MAX_TTL)
			.defaultTtl(MAX_TTL)
			.restartGuard(guard)
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	@Test
	void stopClosesEveryConnectionAndStartLocksAgain() throws Exception {
		RedlockRegistry registry = registry(false);
		Lease held = registry.acquire("stop-start", MAX_TTL, Duration.ofSeconds(2));
		registry.stop();
		assertThat(registry.isRunning()).isFalse();
		assertThat(held.isHeld()).isFalse();
		assertThat(fleet.fleet().nodes()).allSatisfy((node) -> {
			assertThat(node.call("GET", "redlock:lock:{stop-start}")).isNull();
			assertThat(clients(node)).isZero();
		});
		assertThat(registry.usableNodes()).isZero();
		assertThat(registry.checkNodes()).hasSize(3)
			.allSatisfy((status) -> assertThat(status.problem()).contains("the registry is stopped"));
		assertThatIllegalStateException().isThrownBy(() -> registry.tryAcquire("stop-start", MAX_TTL))
			.withMessageContaining("is stopped")
			.withMessageContaining("start()");
		// a permit too: before, it tried, and failed after its wait with "not enough
		// usable nodes ... refused (not connected yet)", on a registry that was stopped
		assertThatIllegalStateException()
			.isThrownBy(() -> registry.semaphore("stop-start-permits", 2).acquire(MAX_TTL, Duration.ofSeconds(2)))
			.withMessageContaining("is stopped")
			.withMessageContaining("start()");
		registry.stop(); // stopped already: nothing to do
		registry.start();
		assertThat(registry.isRunning()).isTrue();
		assertThat(registry.usableNodes()).isEqualTo(3);
		try (Lease again = registry.acquire("stop-start", MAX_TTL, Duration.ofSeconds(2))) {
			assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
		}
		// and again
		registry.stop();
		registry.start();
		registry.acquire("stop-start", MAX_TTL, Duration.ofSeconds(2)).close();
	}

	@Test
	void anAcquisitionWaitingAtStopFailsAtOnceSayingWhy() throws Exception {
		RedlockRegistry holder = registry(false);
		RedlockRegistry registry = registry(false);
		try (Lease held = holder.acquire("busy", MAX_TTL, Duration.ofSeconds(2))) {
			CompletableFuture<Lease> waiting = registry.acquireAsync("busy", MAX_TTL, Duration.ofSeconds(30));
			await().atMost(Duration.ofSeconds(5)).until(() -> registry.parts().hints.subscriptions() == 1);
			registry.stop();
			assertThat(waiting).failsWithin(Duration.ofSeconds(2))
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(IllegalStateException.class)
				.withMessageContaining("was stopped while acquiring lock 'busy'");
			assertThat(registry.parts().hints.subscriptions()).isZero();
		}
		registry.start();
		// the release hints work again: a waiter subscribes on a new connection
		try (Lease held = holder.acquire("busy", MAX_TTL, Duration.ofSeconds(2))) {
			CompletableFuture<Lease> waiting = registry.acquireAsync("busy", MAX_TTL, Duration.ofSeconds(30));
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(fleet.fleet().nodes())
					.allSatisfy((node) -> assertThat((String) node.call("CLIENT", "LIST")).contains("cmd=subscribe")));
			held.release();
			waiting.get(10, TimeUnit.SECONDS).close();
		}
	}

	/**
	 * A node that restarts empty while the registry is stopped is checked on the new
	 * connection, as at a first start: kept out of quorums for the maximum TTL.
	 */
	@Test
	void aNodeThatRestartedWhileStoppedCountsTowardNoQuorumAfterStart() throws Exception {
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("SET", "redlock:node", "established:0");
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> fleet.fleet().nodes().stream().allMatch((node) -> uptimeSeconds(node) > 3));
		RedlockRegistry registry = registry(true);
		registry.acquire("guarded", MAX_TTL, Duration.ofSeconds(2)).close();
		registry.stop();
		fleet.node(2).restart(false);
		// another owner holds the key on node 1: only nodes 0 and 2 could agree
		fleet.node(1).call("SET", "redlock:lock:{guarded}", "someone-else", "PX", "60000");
		try {
			registry.start();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> registry.acquire("guarded", MAX_TTL, Duration.ZERO))
				.withMessageContaining(fleet.node(2).uri() + " recently restarted");
		}
		finally {
			fleet.node(1).call("DEL", "redlock:lock:{guarded}");
		}
	}

	@Test
	void closeAfterStopClosesAndStartAfterCloseIsRefused() {
		RedlockRegistry registry = registry(false);
		registry.stop();
		registry.close();
		assertThat(registry.isRunning()).isFalse();
		assertThatIllegalStateException().isThrownBy(registry::start).withMessageContaining("closed");
	}

	private static long clients(RedisNode node) {
		String clients = (String) node.call("CLIENT", "LIST");
		return clients.lines().filter((line) -> !line.contains(" cmd=client")).count();
	}

	private static long uptimeSeconds(RedisNode node) {
		String info = (String) node.call("INFO", "server");
		int start = info.indexOf("uptime_in_seconds:") + "uptime_in_seconds:".length();
		return Long.parseLong(info.substring(start, info.indexOf('\r', start)));
	}

}
