package io.github.redlock.engine;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.kinds.ReadWriteLocks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Read-write locks against five real nodes when some refuse, go down, lose a reader's
 * quorum or restart: a minority is tolerated, a lost quorum loses the read lease and
 * tells its listeners, and a restarted node counts toward no quorum. See
 * {@link ReadWriteLocks} for the algorithm.
 */
class ReadWriteLockUnderNodeFaultsIntegrationTests {

	private static final Duration TTL = Duration.ofSeconds(10);

	/**
	 * The wait time of acquisitions that nothing contends: a few seconds, so that a
	 * loaded machine that is slow to connect or to restart a node does not fail them.
	 */
	private static final Duration SETTLE = Duration.ofSeconds(5);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	private RedlockRegistry registry() {
		RedlockRegistry registry = TestRegistries.builder(fleet) // the guard test turns
																	// it on
			.nodeTimeout(Duration.ofMillis(250))
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	@Test
	void aReaderGrantedWhileSomeNodesRefusedItLeavesNothingBehindWhenReleased() throws Exception {
		RedlockRegistry registry = registry();
		fleet.node(1).call("SET", "redlock:lock:{rw:partial}", "someone-else", "PX", "60000");
		fleet.node(3).call("SET", "redlock:lock:{rw:partial}", "someone-else", "PX", "60000");
		Lease read = registry.acquireRead("rw:partial", TTL, SETTLE);
		read.release();
		for (RedisNode node : fleet.fleet().nodes()) {
			assertThat(node.call("ZCARD", "redlock:readers:{rw:partial}")).as(node.name()).isEqualTo(0L);
		}
		fleet.node(1).call("DEL", "redlock:lock:{rw:partial}");
		fleet.node(3).call("DEL", "redlock:lock:{rw:partial}");
	}

	@Test
	void readAndWriteLocksWorkWithTwoOfFiveNodesDownAndFailWithThree() throws Exception {
		RedlockRegistry registry = registry();
		fleet.node(1).kill();
		fleet.node(3).kill();
		try (Lease read = registry.acquireRead("rw:down", TTL, Duration.ofSeconds(2))) {
			assertThat(read.isHeld()).isTrue();
			assertThat(read.extend(TTL)).isTrue();
		}
		try (Lease write = registry.acquireWrite("rw:down", TTL, Duration.ofSeconds(2))) {
			assertThat(write.isHeld()).isTrue();
		}
		fleet.node(4).pause();
		try {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> registry.acquireRead("rw:down", TTL, Duration.ofMillis(500)))
				.withMessageContaining("3 needed");
		}
		finally {
			fleet.node(4).resume();
		}
	}

	@Test
	void aReadLeaseIsLostWhenItsQuorumIsAndTellsItsListeners() throws Exception {
		RedlockRegistry registry = registry();
		Lease read = registry.acquireRead("rw:lost", Duration.ofSeconds(1), SETTLE, true);
		AtomicReference<Throwable> lost = new AtomicReference<>();
		read.addListener((lease, cause) -> lost.set(cause));
		fleet.node(0).kill();
		fleet.node(1).kill();
		fleet.node(2).kill();
		await().atMost(Duration.ofSeconds(10)).until(() -> lost.get() != null);
		assertThat(read.isHeld()).isFalse();
		read.release();
	}

	@Test
	void aRestartedNodeCountsTowardNoQuorumSoAWriterCannotOverlapAReader() throws Exception {
		Duration maxTtl = Duration.ofSeconds(5);
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("SET", "redlock:node", "established:0");
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> fleet.fleet().nodes().stream().allMatch((node) -> uptimeSeconds(node) > 6));
		RedlockRegistry readers = guarded(maxTtl, true);
		// another owner's exclusive lock on nodes 3 and 4: the reader holds on 0, 1, 2
		fleet.node(3).call("SET", "redlock:lock:{rw:guard}", "someone-else", "PX", "60000");
		fleet.node(4).call("SET", "redlock:lock:{rw:guard}", "someone-else", "PX", "60000");
		Lease read = readers.acquireRead("rw:guard", maxTtl, SETTLE);
		// node 2 restarts empty, and the other owner's lock ends on 3 and 4
		fleet.node(2).restart(false);
		fleet.node(3).call("DEL", "redlock:lock:{rw:guard}");
		fleet.node(4).call("DEL", "redlock:lock:{rw:guard}");
		// nodes 2, 3 and 4 are free of the key, but node 2 forgot the reader: the guard
		// keeps it out, so no writer gets in while the reader holds
		RedlockRegistry writers = guarded(maxTtl, true);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> writers.acquireWrite("rw:guard", maxTtl, Duration.ofMillis(500)));
		// without the guard, a writer does get in beside the reader: what the guard is
		// for
		RedlockRegistry unguarded = guarded(maxTtl, false);
		Optional<Lease> overlapping;
		try {
			overlapping = Optional.of(unguarded.acquireWrite("rw:guard", maxTtl, Duration.ZERO));
		}
		catch (LockAcquisitionException ex) {
			overlapping = Optional.empty();
		}
		boolean readerStillHeld = read.isHeld();
		System.out.println("rw: without the restart guard a writer got in: " + overlapping.isPresent()
				+ ", while the reader was held: " + readerStillHeld);
		assertThat(overlapping).isPresent();
		overlapping.get().release();
		read.release();
	}

	private static long uptimeSeconds(RedisNode node) {
		String info = (String) node.call("INFO", "server");
		int start = info.indexOf("uptime_in_seconds:") + "uptime_in_seconds:".length();
		return Long.parseLong(info.substring(start, info.indexOf('\r', start)));
	}

	private RedlockRegistry guarded(Duration maxTtl, boolean guard) {
		RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.nodeTimeout(Duration.ofMillis(250))
			.maxTtl(maxTtl)
			.defaultTtl(maxTtl)
			.restartGuard(guard)
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

}
