package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockRegistry;
import io.github.redlock.autoconfigure.health.RedlockHealthContributorAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.autoconfigure.context.properties.ConfigurationPropertiesReportEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.env.EnvironmentEndpointAutoConfiguration;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint;
import org.springframework.boot.actuate.env.EnvironmentEndpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * A run with passwords in every place one can be given (a URI's user and password, a lone
 * userinfo, {@code redlock.username}/{@code redlock.password}), scanned for them in every
 * log line (DEBUG for Lettuce, TRACE for the starter), exception message, health detail
 * and Actuator output (issue 13, item 2). Before the fix, a lone userinfo was shown as a
 * user name, and {@code /actuator/env} and {@code /actuator/configprops} with
 * {@code show-values=always} showed {@code redlock.nodes} whole.
 */
@ExtendWith(OutputCaptureExtension.class)
class SecretsIntegrationTests {

	private static final List<String> PASSWORDS = List.of("pw-in-uri-1", "pw-lone-2", "pw-prop-3");

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class,
						HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
						EndpointAutoConfiguration.class, EnvironmentEndpointAutoConfiguration.class,
						ConfigurationPropertiesReportEndpointAutoConfiguration.class))
		.withPropertyValues("redlock.nodes[0]=redis://app:pw-in-uri-1@127.0.0.1:" + fleet.node(0).port(),
				"redlock.nodes[1]=redis://pw-lone-2@127.0.0.1:" + fleet.node(1).port(),
				"redlock.nodes[2]=redis://127.0.0.1:" + fleet.node(2).port(), "redlock.username=app",
				"redlock.password=pw-prop-3", "redlock.restart-guard=false", "redlock.node-timeout=300ms",
				"management.endpoint.env.show-values=always", "management.endpoint.configprops.show-values=always",
				"management.endpoint.health.show-details=always", "management.endpoints.web.exposure.include=*");

	@BeforeAll
	static void logEverything() {
		// a context runner runs no logging listener: set the levels here
		LoggingSystem logging = LoggingSystem.get(SecretsIntegrationTests.class.getClassLoader());
		logging.setLogLevel("io.github.redlock", LogLevel.TRACE);
		logging.setLogLevel("io.lettuce", LogLevel.DEBUG);
	}

	@AfterAll
	static void logLess() {
		LoggingSystem logging = LoggingSystem.get(SecretsIntegrationTests.class.getClassLoader());
		logging.setLogLevel("io.github.redlock", null);
		logging.setLogLevel("io.lettuce", null);
	}

	@BeforeAll
	static void users() {
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("ACL", "SETUSER", "app", "reset", "on", ">pw-in-uri-1", ">pw-prop-3", "~*", "+@all");
		}
	}

	@Test
	void noPasswordAppearsAnywhere(CapturedOutput output) {
		List<String> shown = new ArrayList<>();
		this.contextRunner.run((context) -> {
			ObjectMapper json = new ObjectMapper();
			RedlockRegistry registry = context.getBean(RedlockRegistry.class);
			try (Lease lease = registry.acquire("secrets", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
				assertThat(lease.isHeld()).isTrue();
				shown.add(registry.inspect("secrets").toString());
				// another thread: this one would re-enter
				Throwable busy = CompletableFuture
					.supplyAsync(() -> catchThrowableOfType(LockAcquisitionException.class,
							() -> registry.acquire("secrets", Duration.ofSeconds(5), Duration.ofMillis(200))))
					.join();
				shown.add(busy.getMessage());
			}
			// URIs with credentials connected as the user they name, the others with
			// redlock.username/redlock.password
			assertThat((String) fleet.node(0).call("CLIENT", "LIST")).contains("user=app");
			assertThat((String) fleet.node(2).call("CLIENT", "LIST")).contains("user=app");
			fleet.node(1).kill();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> registry.checkNodes().stream().anyMatch((node) -> !node.usable()));
			shown.add(registry.checkNodes().toString());
			shown.add(registry.toString());
			fleet.node(0).kill();
			LockAcquisitionException noQuorum = catchThrowableOfType(LockAcquisitionException.class,
					() -> registry.acquire("secrets", Duration.ofSeconds(5), Duration.ofSeconds(1)));
			shown.add(noQuorum.getMessage());
			shown.add(json.writeValueAsString(context.getBean(HealthEndpoint.class).health()));
			shown.add(json.writeValueAsString(context.getBean(EnvironmentEndpoint.class).environment(null)));
			shown.add(json.writeValueAsString(
					context.getBean(ConfigurationPropertiesReportEndpoint.class).configurationProperties()));
			shown.add(context.getBean(LockRegistry.class).toString());
		});
		shown.add(output.toString());
		// the scan looked where it meant to
		String all = String.join("\n", shown);
		assertThat(all).contains("redis://127.0.0.1:" + fleet.node(1).port(), "\"redlock.nodes[0]\"",
				"redis://app:******@127.0.0.1:" + fleet.node(0).port(),
				"redis://******@127.0.0.1:" + fleet.node(1).port(), "Could not acquire lock 'secrets'",
				"Connected to redlock node");
		for (String password : PASSWORDS) {
			assertThat(all).as("where %s shows", password).doesNotContain(password);
		}
	}

}
