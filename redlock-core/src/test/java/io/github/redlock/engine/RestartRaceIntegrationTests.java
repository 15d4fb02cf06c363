package io.github.redlock.engine;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.node.NodeClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A node that restarts between the restart guard's check and the send of a script must
 * not count (issue 11, item 10). This test failed before the fix: the connection's
 * generation was read after the check, so the reply of the restarted server, on the new
 * connection, counted, and a one-node registry granted a lock the server had just
 * forgotten it could not vouch for.
 */
class RestartRaceIntegrationTests {

	@RegisterExtension
	final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

	private RedlockRegistry registry;

	@AfterEach
	void close() {
		this.registry.close();
	}

	@Test
	void aNodeThatRestartsJustAfterTheTrustCheckDoesNotCount() {
		this.registry = RedlockRegistry.builder()
			.nodes(this.fleet.uris())
			.defaultTtl(Duration.ofSeconds(1))
			.maxTtl(Duration.ofSeconds(1))
			.build()
			.start();
		// a fresh node sits out for the maximum TTL first
		await().atMost(Duration.ofSeconds(10))
			.ignoreException(LockAcquisitionException.class)
			.until(() -> this.registry.tryAcquire("warm-up", Duration.ofSeconds(1)).map((lease) -> {
				lease.release();
				return true;
			}).orElse(false));
		NodeClient node = (NodeClient) this.registry.parts().fleet.node(0);
		AtomicBoolean once = new AtomicBoolean();
		node.afterTrustCheck(() -> {
			if (once.compareAndSet(false, true)) {
				this.fleet.node(0).restart(true);
				await().atMost(Duration.ofSeconds(10)).until(node::isConnected);
			}
		});
		// the restarted node's reply does not count: no quorum, which tryAcquire says
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.registry.tryAcquire("raced", Duration.ofSeconds(1)))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(LockAcquisitionException.Reason.NO_QUORUM));
		assertThat(once).isTrue();
	}

}
