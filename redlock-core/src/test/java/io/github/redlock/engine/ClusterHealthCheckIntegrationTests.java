package io.github.redlock.engine;

import java.time.Duration;
import java.util.List;

import io.github.redlock.embedded.RedisClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedlockRegistry#checkNodes()} over cluster members with the restart guard off,
 * which health, the endpoint and the cluster gauges of the Spring module read.
 */
class ClusterHealthCheckIntegrationTests {

	@RegisterExtension
	static final RedisClusterExtension clusters = RedisClusterExtension.clusters(3).masters(3);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	// Fails before the fix: with the guard off no SlotCheck runs, so a master's
	// RestartGuardState.markerKey() is the marker of slot 0, and NodeHealth's INSPECT
	// of it gets MOVED from every master but slot 0's. It printed, for every member:
	// "cluster redis://127.0.0.1:18870 (+2): master redis://127.0.0.1:21263 (slots
	// 10922-16383): error (MOVED 0 127.0.0.1:18870: the master does not serve the
	// key's slot now ...)".
	@Test
	void everyMasterOfAHealthyClusterIsUsableWithTheRestartGuardOff() throws InterruptedException {
		RedlockRegistry.Builder builder = RedlockRegistry.builder().restartGuard(false);
		for (List<String> seeds : clusters.seedUris()) {
			builder.cluster(seeds.toArray(String[]::new));
		}
		RedlockRegistry registry = this.registries.start(builder);
		registry.acquire("warm-up", Duration.ofSeconds(5), Duration.ofSeconds(5)).release();
		List<NodeStatus> members = registry.checkNodes();
		assertThat(members).as("%s", members).allSatisfy((member) -> {
			assertThat(member.masters()).hasSize(3).allSatisfy((master) -> assertThat(master.usable()).isTrue());
			assertThat(member.usable()).isTrue();
		});
	}

}
