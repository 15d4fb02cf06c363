package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One {@link RedlockNodeConnectionDetails} bean per node, as Spring Boot registers one
 * connection details bean per Docker Compose service or container: the auto-configuration
 * collects them into the quorum, ordered by name, beside the application's own Spring
 * Data Redis connection.
 */
@ExtendWith(OutputCaptureExtension.class)
class NodeConnectionDetailsIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@RegisterExtension
	static final RedisFleetExtension cache = RedisFleetExtension.nodes(1);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, SslAutoConfiguration.class,
				RedlockAutoConfiguration.class))
		.withPropertyValues("redlock.connect-timeout=500ms", "redlock.restart-guard=false");

	@Test
	void theNodesMakeTheQuorumInTheOrderOfTheirNames() {
		// registered out of order: the quorum must not depend on the order Docker
		// Compose lists its services in
		this.contextRunner.withBean("nodeC", RedlockNodeConnectionDetails.class, () -> node("redlock-c", 2))
			.withBean("nodeA", RedlockNodeConnectionDetails.class, () -> node("redlock-a", 0))
			.withBean("nodeB", RedlockNodeConnectionDetails.class, () -> node("redlock-b", 1))
			.run((context) -> {
				assertThat(context.getBean(RedlockConnectionDetails.class).getNodes()).isEqualTo(fleet.uris());
				RedlockRegistry registry = context.getBean(RedlockRegistry.class);
				assertThat(registry.nodeCount()).isEqualTo(3);
				try (Lease lease = registry.acquire("order:1", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
					assertThat(holding("redlock:lock:{order:1}")).hasSizeGreaterThanOrEqualTo(2);
				}
			});
	}

	@Test
	void theApplicationsOwnRedisStaysItsOwn() {
		// a cache on a Redis service of its own: Spring Boot's DataRedisConnectionDetails
		// next to redlock's nodes, neither taking the other's place
		this.contextRunner.withBean("nodeA", RedlockNodeConnectionDetails.class, () -> node("a", 0))
			.withBean("nodeB", RedlockNodeConnectionDetails.class, () -> node("b", 1))
			.withBean("nodeC", RedlockNodeConnectionDetails.class, () -> node("c", 2))
			.withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {

				@Override
				public Standalone getStandalone() {
					return Standalone.of("127.0.0.1", cache.node(0).port());
				}

			})
			.run((context) -> {
				assertThat(context).hasNotFailed();
				context.getBean(StringRedisTemplate.class).opsForValue().set("cached", "yes");
				assertThat(cache.node(0).call("GET", "cached")).isEqualTo("yes");
				LockRegistry locks = context.getBean(LockRegistry.class);
				try (Lease lease = locks.acquire("order:2", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
					assertThat(holding("redlock:lock:{order:2}")).hasSizeGreaterThanOrEqualTo(2);
					assertThat(cache.node(0).call("EXISTS", "redlock:lock:{order:2}")).isEqualTo(0L);
				}
			});
	}

	@Test
	void theNodesReplaceRedlockNodes() {
		this.contextRunner.withBean("nodeA", RedlockNodeConnectionDetails.class, () -> node("a", 0))
			.withPropertyValues("redlock.nodes[0]=redis://127.0.0.1:1")
			.run((context) -> assertThat(context.getBean(RedlockConnectionDetails.class).getNodes())
				.containsExactly(fleet.uris().get(0)));
	}

	@Test
	void anApplicationsRedlockConnectionDetailsWinsOverTheNodes() {
		RedlockConnectionDetails own = () -> List.of(fleet.uris().get(1));
		this.contextRunner.withBean("nodeA", RedlockNodeConnectionDetails.class, () -> node("a", 0))
			.withBean(RedlockConnectionDetails.class, () -> own)
			.run((context) -> assertThat(context.getBean(RedlockConnectionDetails.class)).isSameAs(own));
	}

	@Test
	void nodesThatDoNotShareOnePasswordAreRefused() {
		this.contextRunner.withBean("nodeA", RedlockNodeConnectionDetails.class, () -> node("a", 0))
			.withBean("nodeB", RedlockNodeConnectionDetails.class, () -> new Node("b", 1, "s3cret-pw", null, false))
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidRedlockConfigurationException.class)
				.hasMessageContaining("The redlock nodes [a, b] do not share one password: a and b differ")
				.message()
				.doesNotContain("s3cret-pw"));
	}

	@Test
	void nodesThatMixTlsAndPlainConnectionsAreRefused() {
		SslBundle bundle = SslBundle.of(null);
		this.contextRunner.withBean("nodeA", RedlockNodeConnectionDetails.class, () -> node("a", 0))
			.withBean("nodeB", RedlockNodeConnectionDetails.class, () -> new Node("b", 1, null, bundle, false))
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("mix TLS and plain connections: b has an SSL bundle and a has none"));
	}

	@Test
	void theRestartGuardIsOffForNodesThatStartEmptyWithEachRun(CapturedOutput output) {
		// Docker Compose services and test containers: the guard would keep all of them
		// out of quorums for redlock.max-ttl after every start
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
			.withBean("nodeA", RedlockNodeConnectionDetails.class, () -> new Node("a", 0, null, null, true))
			.withBean("nodeB", RedlockNodeConnectionDetails.class, () -> new Node("b", 1, null, null, true))
			.run((context) -> assertThat(context.getBean(RedlockRegistry.class).settings().restartGuard()).isFalse());
		assertThat(output).contains("redlock.restart-guard=false for RedlockConnectionDetails of the nodes [a, b]");
	}

	@Test
	void theRestartGuardStaysOnWhenSetOrForNodesThatOutliveTheRun() {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class));
		runner.withBean("nodeA", RedlockNodeConnectionDetails.class, () -> new Node("a", 0, null, null, true))
			.withPropertyValues("redlock.restart-guard=true")
			.run((context) -> assertThat(context.getBean(RedlockRegistry.class).settings().restartGuard()).isTrue());
		runner.withBean("nodeA", RedlockNodeConnectionDetails.class, () -> new Node("a", 0, null, null, true))
			.withBean("nodeB", RedlockNodeConnectionDetails.class, () -> node("b", 1))
			.run((context) -> assertThat(context.getBean(RedlockRegistry.class).settings().restartGuard()).isTrue());
	}

	private static RedlockNodeConnectionDetails node(String name, int index) {
		return new Node(name, index, null, null, false);
	}

	private static List<RedisNode> holding(String key) {
		return fleet.fleet().nodes().stream().filter((node) -> node.call("GET", key) != null).toList();
	}

	private record Node(String name, int index, String password, SslBundle bundle,
			boolean ephemeral) implements RedlockNodeConnectionDetails {

		@Override
		public boolean isEphemeral() {
			return this.ephemeral;
		}

		@Override
		public String getName() {
			return this.name;
		}

		@Override
		public String getHost() {
			return "127.0.0.1";
		}

		@Override
		public int getPort() {
			return fleet.node(this.index).port();
		}

		@Override
		public String getPassword() {
			return this.password;
		}

		@Override
		public SslBundle getSslBundle() {
			return this.bundle;
		}

	}

}
