package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.NodeFailure;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.node.NodeTrust;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * One server listed under two names counts once (issue 11, item 6). Failed before the
 * fix: {@code redis://127.0.0.1:P} and {@code redis://localhost:P} were two usable nodes,
 * health counted 4 of 4, and the second name answered "held by another owner" to every
 * acquisition.
 */
class DuplicateServerIntegrationTests {

	@RegisterExtension
	final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final LogCapture log = LogCapture.of(Level.INFO, NodeTrust.class);

	private RedlockRegistry registry;

	@AfterEach
	void close() {
		this.log.close();
		if (this.registry != null) {
			this.registry.close();
		}
	}

	private RedlockRegistry registry(boolean guard) {
		String twin = "redis://localhost:" + this.fleet.node(0).port();
		List<String> nodes = new ArrayList<>(this.fleet.uris());
		nodes.add(twin);
		this.registry = RedlockRegistry.builder().nodes(nodes).restartGuard(guard).build().start();
		return this.registry;
	}

	@Test
	void aServerListedUnderTwoNamesCountsOnce() throws Exception {
		RedlockRegistry registry = registry(false);
		String twin = "redis://localhost:" + this.fleet.node(0).port();
		List<NodeStatus> status = registry.checkNodes();
		assertThat(status).hasSize(4);
		assertThat(status.get(3).usable()).isFalse();
		assertThat(status.get(3).problem()).contains("listed twice")
			.contains("the same server as " + this.fleet.node(0).uri());
		assertThat(status.subList(0, 3)).allMatch(NodeStatus::usable);
		assertThat(this.log.lines()).anyMatch((line) -> line.startsWith("WARNING") && line.contains(twin)
				&& line.contains("is the same server as " + this.fleet.node(0).uri()));
		// three distinct servers agree: a quorum of the four listed
		try (Lease lease = registry.acquire("twin", Duration.ofSeconds(10), Duration.ZERO)) {
			assertThat(lease.isHeld()).isTrue();
		}
		// with one real server down, only two distinct servers are left
		this.fleet.node(1).kill();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.acquire("twin", Duration.ofSeconds(10), Duration.ZERO))
			.satisfies((ex) -> assertThat(ex.getFailures()).extracting(NodeFailure::kind)
				.contains(NodeFailure.Kind.DUPLICATE));
	}

	@Test
	void theDuplicateIsFoundWithTheRestartGuardOnToo() {
		RedlockRegistry registry = registry(true);
		List<NodeStatus> status = registry.checkNodes();
		assertThat(status.get(3).usable()).isFalse();
		assertThat(status.get(3).problem()).contains("the same server as " + this.fleet.node(0).uri());
	}

}
