package io.github.redlock.engine;

import java.time.Duration;
import java.util.logging.Level;

import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.node.NodeTrust;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node whose restart check fails for a reason other than a permission (issue 23, item
 * 5) is reported once at WARN with the reason, checked again with a back-off rather than
 * on every command, and counts again once a check succeeds. The check is made to fail for
 * real: the node's marker key is turned into a list, so the marker script gets a
 * WRONGTYPE error, and the lock connection is killed so that the node is checked again.
 * <p>
 * Before the fix the failure was logged at DEBUG only and every command checked the node
 * again with two INFO calls: this test failed with "[WARN lines about the failed check]
 * Expected size: 1 but was: 0" and printed "50 acquisitions while node 0's restart check
 * failed: 80 INFO calls on it" (2 after the fix: one check, retried after a second).
 */
class RestartCheckFailureIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private RedlockRegistry registry;

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close();
		}
	}

	@Test
	void aNodeWhoseRestartCheckFailsIsReportedOnceCheckedWithBackOffAndCountsAgain() throws Exception {
		this.registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(true)
			.maxTtl(Duration.ofSeconds(3))
			.defaultTtl(Duration.ofSeconds(3))
			.releaseHints(false)
			.nodeTimeout(Duration.ofMillis(250))
			.connectTimeout(Duration.ofSeconds(10))
			.build()
			.start();
		RedisNode node = fleet.node(0);
		// fresh nodes sit out the guard time once
		await().atMost(Duration.ofSeconds(30)).until(() -> this.registry.usableNodes() == 3);
		try (LogCapture log = LogCapture.of(Level.WARNING, NodeTrust.class)) {
			String marker = this.registry.settings().keyPrefix() + "node";
			node.call("DEL", marker);
			node.call("RPUSH", marker, "not a marker");
			node.call("CLIENT", "KILL", "TYPE", "normal");
			await().atMost(Duration.ofSeconds(30)).until(() -> this.registry.usableNodes() == 2);
			long infoBefore = NodeStats.calls(node, "info");
			int acquisitions = 50;
			for (int i = 0; i < acquisitions; i++) {
				this.registry.acquire("check-" + i, Duration.ofSeconds(3), Duration.ofSeconds(10)).release();
			}
			// one INFO is this test's own reading
			long infos = NodeStats.calls(node, "info") - infoBefore - 1;
			System.out.printf("%d acquisitions while node 0's restart check failed: %d INFO calls on it%n",
					acquisitions, infos);
			assertThat(log.lines("WRONGTYPE")).as("WARN lines about the failed check").hasSize(1);
			assertThat(infos).as("INFO calls on the node").isLessThan(20);
			assertThat(this.registry.usableNodes()).isEqualTo(2);
			node.call("DEL", marker);
			// checked again on its own, with no command to ask for it
			await().atMost(Duration.ofSeconds(60)).until(() -> this.registry.usableNodes() == 3);
		}
	}

}
