package io.github.redlock.testcontainers;

import java.time.Duration;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.boot.testcontainers.service.connection.ServiceConnectionAutoConfiguration;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three container beans annotated {@code @ServiceConnection("redlock")}, as a
 * configuration shared by tests and by {@code SpringApplication.from(...)} declares them,
 * through Spring Boot's own auto-configuration for them: a quorum of three, not the one
 * node Spring Boot registers by itself.
 * <p>
 * Failed without {@link RedlockServiceConnectionAutoConfiguration}: "expected: [three
 * nodes] but was: ["redis://127.0.0.1:44533"]", the last container alone.
 */
@SpringBootTest(classes = ContainerBeansQuorumIntegrationTests.Containers.class,
		properties = "redlock.connect-timeout=1s")
class ContainerBeansQuorumIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@Autowired
	private RedlockConnectionDetails connectionDetails;

	@Autowired
	private LockRegistry locks;

	@Test
	void theThreeContainerBeansAreTheQuorumInTheOrderOfTheirNames() throws Exception {
		assertThat(this.connectionDetails.getNodes()).isEqualTo(fleet.uris());
		try (Lease lease = this.locks.acquire("order:1", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
			assertThat(fleet.fleet().nodes()).filteredOn((node) -> node.call("GET", "redlock:lock:{order:1}") != null)
				.hasSizeGreaterThanOrEqualTo(2);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ ServiceConnectionAutoConfiguration.class,
			RedlockServiceConnectionAutoConfiguration.class, RedlockAutoConfiguration.class })
	static class Containers {

		@Bean
		@ServiceConnection("redlock")
		StandInContainer redlockC() {
			return new StandInContainer("redis:7.4", () -> fleet.node(2).port());
		}

		@Bean
		@ServiceConnection("redlock")
		StandInContainer redlockA() {
			return new StandInContainer("redis:7.4", () -> fleet.node(0).port());
		}

		@Bean
		@ServiceConnection("redlock")
		StandInContainer redlockB() {
			return new StandInContainer("redis:7.4", () -> fleet.node(1).port());
		}

	}

}
