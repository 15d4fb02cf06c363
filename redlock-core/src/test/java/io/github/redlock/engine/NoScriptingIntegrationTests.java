package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.NodeFailure;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.node.NodeTrust;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * Every lock command is a Lua script, so a node that cannot run them is named as such,
 * with the fix, at start-up (a warning), in health and in acquisition failures, and
 * counts toward no quorum. Failed before: a node with {@code EVALSHA} renamed away
 * answered every lock command with a generic error ("ERR unknown command"), and health
 * said it was usable; a node without {@code EVAL} failed its restart check again and
 * again, reported as "recently restarted".
 */
class NoScriptingIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(2);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	private final LogCapture log = LogCapture.of(Level.INFO, NodeTrust.class);

	private final List<RedisNode> started = new ArrayList<>();

	@AfterEach
	void stop() {
		this.started.forEach(RedisNode::close);
		this.log.close();
	}

	private RedisNode startWithout(String... commands) {
		List<String> options = new ArrayList<>();
		for (String command : commands) {
			options.add("--rename-command");
			options.add(command);
			options.add(command.toLowerCase() + "-renamed-away");
		}
		RedisNode node = RedisNode.start("noscripts", options.toArray(String[]::new));
		this.started.add(node);
		return node;
	}

	private RedlockRegistry registryWith(RedisNode odd, boolean restartGuard) {
		return this.registries.start(RedlockRegistry.builder()
			.nodes(fleet.node(0).uri(), fleet.node(1).uri(), odd.uri())
			.restartGuard(restartGuard)
			.maxTtl(Duration.ofSeconds(1))
			.defaultTtl(Duration.ofSeconds(1)));
	}

	@Test
	void aNodeWithoutEvalshaIsNamedEverywhereAndCountsTowardNoQuorum() throws Exception {
		RedisNode odd = startWithout("EVALSHA");
		RedlockRegistry registry = registryWith(odd, false);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(registry.checkNodes().get(2).problem())
				.startsWith(
						"not usable: cannot run Lua scripts (this node cannot run Lua scripts: EVALSHA is an unknown"
								+ " command on it")
				.contains("give it EVAL and EVALSHA under their own names"));
		assertThat(registry.checkNodes().get(2).usable()).isFalse();
		// the other two are a quorum
		try (Lease lease = registry.acquire("scripts", Duration.ofSeconds(1), Duration.ofSeconds(5))) {
			assertThat(lease.fencingToken()).isGreaterThan(0);
		}
		assertThat(this.log.lines())
			.filteredOn((line) -> line.startsWith("WARNING") && line.contains(odd.uri())
					&& line.contains("is not usable: cannot run Lua scripts"))
			.hasSize(1);
	}

	@Test
	void aNodeWithoutEvalIsNamedByItsCheckWithTheRestartGuardOn() {
		RedisNode odd = startWithout("EVAL", "EVALSHA");
		fleet.node(0).kill();
		try {
			RedlockRegistry registry = registryWith(odd, true);
			LockAcquisitionException failure = catchThrowableOfType(LockAcquisitionException.class,
					() -> registry.acquire("scripts", Duration.ofSeconds(1), Duration.ofSeconds(3)));
			assertThat(failure.getFailures()).filteredOn((node) -> node.node().equals(odd.uri()))
				.singleElement()
				.satisfies((node) -> {
					assertThat(node.kind()).isEqualTo(NodeFailure.Kind.SCRIPTING);
					assertThat(node.detail()).contains("EVAL and EVALSHA are unknown commands");
				});
		}
		finally {
			fleet.node(0).start();
		}
	}

	@Test
	void anAclUserWithoutScriptingIsToldToAddIt() {
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("ACL", "SETUSER", "noscripting", "on", ">secret-password", "~*", "+@all", "-@scripting");
		}
		RedlockRegistry registry = this.registries.start(RedlockRegistry.builder()
			.nodes(fleet.node(0).uri().replace("redis://", "redis://noscripting:secret-password@"),
					fleet.node(1).uri().replace("redis://", "redis://noscripting:secret-password@"))
			.restartGuard(false));
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(registry.checkNodes()).allSatisfy((status) -> assertThat(status.problem())
				.startsWith("not usable: cannot run Lua scripts (this node cannot run Lua scripts: the ACL user may"
						+ " not use EVAL and EVALSHA")
				.contains("add +eval +evalsha (or +@scripting) to its rules")));
	}

}
