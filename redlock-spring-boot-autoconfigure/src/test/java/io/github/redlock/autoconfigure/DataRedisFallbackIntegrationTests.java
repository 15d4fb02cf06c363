package io.github.redlock.autoconfigure;

import java.time.Duration;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without {@code redlock.nodes}, the one server of Spring Boot's own Redis connection
 * details (issue 13, item 1). Before, the starter read {@code spring.data.redis.*}
 * itself, put the password into the URI and ignored {@code spring.data.redis.ssl.*}, so
 * the password went out in cleartext; a {@code @ServiceConnection} was not seen at all.
 */
@ExtendWith(OutputCaptureExtension.class)
class DataRedisFallbackIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, SslAutoConfiguration.class,
				RedlockAutoConfiguration.class))
		.withPropertyValues("redlock.connect-timeout=500ms", "redlock.restart-guard=false");

	@BeforeAll
	static void user() {
		fleet.node(0).call("ACL", "SETUSER", "app", "reset", "on", ">s3cret-pw", "~*", "+@all");
	}

	@Test
	void theSpringDataRedisServerIsOneNodeWithItsCredentialsAndAWarning(CapturedOutput output) {
		RedisNode node = fleet.node(0);
		this.contextRunner
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + node.port(),
					"spring.data.redis.username=app", "spring.data.redis.password=s3cret-pw",
					"spring.data.redis.database=2")
			.run((context) -> {
				RedlockRegistry registry = context.getBean(RedlockRegistry.class);
				assertThat(registry.nodeCount()).isEqualTo(1);
				try (Lease lease = registry.acquire("fallback", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
					assertThat(lease.isHeld()).isTrue();
				}
				assertThat((String) node.call("CLIENT", "LIST")).contains("user=app").contains("db=2");
			});
		assertThat(output).contains("redlock.nodes is not set: locking on the single Spring Data Redis server",
				"redis://127.0.0.1:" + node.port() + "/2", "not fault tolerant");
		assertThat(output).doesNotContain("s3cret-pw");
	}

	@Test
	void aUrlGivesHostDatabaseCredentialsAndTls() {
		this.contextRunner.withPropertyValues("spring.data.redis.url=rediss://app:s3cret-pw@127.0.0.1:5/1")
			.run((context) -> assertThat(context.getBean(RedlockRegistry.class).toString())
				.contains("rediss://127.0.0.1:5/1")
				.doesNotContain("s3cret-pw")
				.doesNotContain("app@"));
	}

	@Test
	void aConnectionDetailsBeanIsUsedAsAServiceConnectionWouldBe() {
		// what Testcontainers' @ServiceConnection or Docker Compose register
		this.contextRunner.withUserConfiguration(ServiceConnection.class).run((context) -> {
			LockRegistry locks = context.getBean(LockRegistry.class);
			try (Lease lease = locks.acquire("service", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
				assertThat(lease.isHeld()).isTrue();
			}
			assertThat(locks.toString()).contains("redis://127.0.0.1:" + fleet.node(0).port());
		});
	}

	@Test
	void springBootsDefaultsAloneAreNoFallback() {
		this.contextRunner.run((context) -> assertThat(context.getStartupFailure())
			.hasMessageContaining("No redlock nodes are configured"));
	}

	@Test
	void aConnectionDetailsBeanThatNamesNoServerIsNoFallback() {
		// details of the application's own that describe no setup (Boot's defaults answer
		// null for each), beside a connection factory of its own, which Boot then leaves
		// alone. Found by NullAway; before, the start-up failed with a
		// NullPointerException: 'Cannot invoke "...Standalone.getHost()" because
		// "standalone" is null'
		this.contextRunner.withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {
		})
			.withBean(RedisConnectionFactory.class, LettuceConnectionFactory::new)
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("No redlock nodes are configured"));
	}

	@Test
	void sentinelIsRefusedNamingRedlockNodes() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.sentinel.master=mymaster",
					"spring.data.redis.sentinel.nodes=127.0.0.1:26379")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Spring Data Redis connects to a Sentinel setup")
				.hasMessageContaining("redlock.nodes"));
	}

	@Test
	void redlockNodesWinAndTheSentinelSettingsAreNotRedlocksBusiness() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.sentinel.master=mymaster",
					"spring.data.redis.sentinel.nodes=127.0.0.1:26379", "redlock.nodes[0]=redis://127.0.0.1:1")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RedlockRegistry.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConnection {

		@Bean
		DataRedisConnectionDetails serviceConnectionDetails() {
			return new DataRedisConnectionDetails() {

				@Override
				public String getUsername() {
					return "app";
				}

				@Override
				public String getPassword() {
					return "s3cret-pw";
				}

				@Override
				public Standalone getStandalone() {
					return Standalone.of("127.0.0.1", fleet.node(0).port());
				}

			};
		}

	}

}
