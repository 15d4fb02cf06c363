package io.github.redlock.testcontainers;

import java.time.Duration;
import java.util.List;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import io.github.redlock.autoconfigure.RedlockNodeConnectionDetails;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three container fields annotated {@code @ServiceConnection("redlock")} and one plain
 * {@code @ServiceConnection} Redis container for the cache, through Spring Boot's own
 * Testcontainers support: the containers are never started (no Docker engine here) and
 * answer with the ports of real nodes.
 * <p>
 * Failed before the context customizer (with the factory alone): Spring Boot registered
 * one connection details bean per type and skipped the other two containers, so the
 * quorum had one node: "Expecting actual:
 * {"redlockContainerConnectionDetailsForTest"=...} to contain only following keys:
 * ["redlockNodeConnectionDetailsForRedlock1", ...]".
 */
@SpringBootTest(classes = TestcontainersQuorumIntegrationTests.Config.class, properties = "redlock.connect-timeout=1s")
class TestcontainersQuorumIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(4);

	// declared out of the order of their names: the quorum is ordered by name
	@ServiceConnection("redlock")
	static final StandInContainer redlock3 = new StandInContainer("redis:7.4", () -> fleet.node(2).port());

	@ServiceConnection("redlock")
	static final StandInContainer redlock1 = new StandInContainer("valkey/valkey:8.0", () -> fleet.node(0).port());

	@ServiceConnection("redlock")
	static final StandInContainer redlock2 = new StandInContainer("redis:7.4", () -> fleet.node(1).port());

	@ServiceConnection
	static final StandInContainer cache = new StandInContainer("redis:7.4", () -> fleet.node(3).port());

	@Autowired
	private ApplicationContext context;

	@Autowired
	private RedlockConnectionDetails connectionDetails;

	@Autowired
	private LockRegistry locks;

	@Autowired
	private StringRedisTemplate redis;

	@Test
	void theThreeContainersAreTheQuorumInTheOrderOfTheirNames() throws Exception {
		assertThat(this.context.getBeansOfType(RedlockNodeConnectionDetails.class)).containsOnlyKeys(
				"redlockNodeConnectionDetailsForRedlock1", "redlockNodeConnectionDetailsForRedlock2",
				"redlockNodeConnectionDetailsForRedlock3");
		assertThat(this.connectionDetails.getNodes()).isEqualTo(fleet.uris().subList(0, 3));
		try (Lease lease = this.locks.acquire("order:1", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
			List<RedisNode> holding = fleet.fleet()
				.nodes()
				.stream()
				.filter((node) -> node.call("GET", "redlock:lock:{order:1}") != null)
				.toList();
			assertThat(holding).hasSizeGreaterThanOrEqualTo(2).doesNotContain(fleet.node(3));
		}
	}

	@Test
	void thePlainRedisContainerIsTheApplicationsSpringDataRedis() {
		assertThat(this.context.getBeanNamesForType(DataRedisConnectionDetails.class)).hasSize(1);
		this.redis.opsForValue().set("cart:7", "2 items");
		assertThat(fleet.node(3).call("GET", "cart:7")).isEqualTo("2 items");
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, RedlockAutoConfiguration.class })
	static class Config {

	}

}
