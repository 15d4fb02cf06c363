package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.Arrays;

import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node going down is logged once, as docs/observability.md says (issue 41, item 5), not
 * at every reconnect attempt of Lettuce's {@code ConnectionWatchdog}. Before
 * {@link RedlockLoggingDefaults}, the 10 s below logged "Reconnecting, last destination
 * was" (INFO) and "Cannot reconnect to" (WARN) lines, two pairs in the run that checked
 * it, and more the longer a node stays down.
 */
@ExtendWith(OutputCaptureExtension.class)
class NodeDownLoggedOnceIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@Test
	void aNodeGoingDownIsLoggedOnceAndLettucesReconnectsAreQuiet(CapturedOutput output) throws Exception {
		SpringApplication application = new SpringApplication(LockingApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		String[] args = Arrays.stream(FleetProperties.of(fleet))
			.map((property) -> "--" + property)
			.toArray(String[]::new);
		try (ConfigurableApplicationContext context = application.run(args)) {
			String node = fleet.uris().get(0);
			fleet.node(0).kill();
			await().atMost(Duration.ofSeconds(30))
				.until(() -> output.toString().contains("Redlock node " + node + " is down"));
			int from = output.length();
			// keeps the node down for a stated time, while Lettuce tries to reconnect
			// about once a second
			Thread.sleep(10_000);
			String tenSeconds = output.toString().substring(from);
			assertThat(fleet.node(0).isRunning()).as("the node stayed down").isFalse();
			assertThat(tenSeconds).doesNotContain("Reconnecting, last destination was")
				.doesNotContain("Cannot reconnect");
			assertThat(output.toString()).containsOnlyOnce("Redlock node " + node + " is down");
		}
	}

	@Test
	void theApplicationsOwnLevelWins(CapturedOutput output) throws Exception {
		SpringApplication application = new SpringApplication(LockingApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		String[] args = Arrays
			.stream(FleetProperties.of(fleet, "logging.level.io.lettuce.core.protocol.ConnectionWatchdog=INFO"))
			.map((property) -> "--" + property)
			.toArray(String[]::new);
		try (ConfigurableApplicationContext context = application.run(args)) {
			fleet.node(0).kill();
			await().atMost(Duration.ofSeconds(30))
				.until(() -> output.toString().contains("Reconnecting, last destination was"));
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(RedlockAutoConfiguration.class)
	static class LockingApplication {

	}

}
