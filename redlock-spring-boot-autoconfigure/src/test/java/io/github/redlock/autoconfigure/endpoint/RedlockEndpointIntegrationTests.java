package io.github.redlock.autoconfigure.endpoint;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.endpoint.RedlockEndpoint;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementContextAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.servlet.autoconfigure.actuate.web.ServletManagementContextAutoConfiguration;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code redlock} Actuator endpoint over HTTP, in a web application on real nodes,
 * one of them reached with a password in its URI, another with a lone password: both are
 * scanned for in every answer.
 */
class RedlockEndpointIntegrationTests {

	private static final List<String> PASSWORDS = List.of("pw-ops-endpoint-1", "pw-lone-endpoint-2");

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final HttpClient http = HttpClient.newHttpClient();

	@BeforeAll
	static void users() {
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("ACL", "SETUSER", "ops", "reset", "on", ">pw-ops-endpoint-1", "~*", "+@all");
		}
	}

	@Test
	void showsTheNodesAndOneLockOverHttpWithoutSecrets() throws Exception {
		List<String> shown = new ArrayList<>();
		try (ConfigurableApplicationContext context = webApplication(
				"management.endpoints.web.exposure.include=health,redlock")) {
			String base = "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort()
					+ "/actuator/redlock";
			RedlockRegistry registry = context.getBean(RedlockRegistry.class);
			HttpResponse<String> nodes = get(base);
			shown.add(nodes.body());
			assertThat(nodes.statusCode()).isEqualTo(200);
			assertThat(nodes.body()).contains("\"canLock\":true", "\"quorum\":2", "\"usable\":3",
					"\"toleratedFailures\":1", "\"address\":\"redis://127.0.0.1:" + fleet.node(0).port() + "\"",
					"\"state\":\"UP\"");
			try (Lease lease = registry.acquire("jobs/nightly", Duration.ofSeconds(3), Duration.ofSeconds(2))) {
				HttpResponse<String> lock = get(base + "/jobs/nightly");
				shown.add(lock.body());
				assertThat(lock.statusCode()).isEqualTo(200);
				assertThat(lock.body()).contains("\"key\":\"jobs/nightly\"", "\"heldAnywhere\":true",
						"\"holder\":\"" + registry.inspect("jobs/nightly").holder().orElseThrow() + "\"",
						"\"fencingCounter\":" + lease.fencingToken());
			}
			HttpResponse<String> free = get(base + "/jobs/nightly");
			shown.add(free.body());
			assertThat(free.body()).contains("\"heldAnywhere\":false").doesNotContain("\"holder\"", "\"owner\"");
			HttpResponse<String> tooLong = get(base + "/" + "k".repeat(RedlockRegistry.MAX_KEY_LENGTH + 1));
			assertThat(tooLong.statusCode()).as("a key the registry refuses").isEqualTo(400);
			fleet.node(2).kill();
			HttpResponse<String> degraded = get(base);
			shown.add(degraded.body());
			assertThat(degraded.body()).contains("\"usable\":2", "\"toleratedFailures\":0", "\"state\":\"DOWN\"");
		}
		String all = String.join("\n", shown);
		assertThat(all).contains("redis://127.0.0.1:" + fleet.node(1).port());
		for (String password : PASSWORDS) {
			assertThat(all).as("where %s shows", password).doesNotContain(password);
		}
		assertThat(all).doesNotContain("ops@", "ops:");
	}

	@Test
	void absentUnlessExposed() {
		ApplicationContextRunner contextRunner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, RedlockAutoConfiguration.class,
					RedlockEndpointAutoConfiguration.class))
			.withPropertyValues(FleetProperties.of(fleet));
		contextRunner.run((context) -> assertThat(context).doesNotHaveBean(RedlockEndpoint.class));
		contextRunner.withPropertyValues("management.endpoints.web.exposure.include=redlock")
			.run((context) -> assertThat(context).hasSingleBean(RedlockEndpoint.class));
		contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=redlock",
					"management.endpoint.redlock.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(RedlockEndpoint.class));
		contextRunner.withPropertyValues("management.endpoints.web.exposure.include=*", "redlock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedlockEndpoint.class));
	}

	private HttpResponse<String> get(String uri) throws Exception {
		HttpResponse<String> response = this.http.send(
				HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(20)).build(),
				HttpResponse.BodyHandlers.ofString());
		return response;
	}

	private static ConfigurableApplicationContext webApplication(String... properties) {
		SpringApplication application = new SpringApplication(WebApplication.class);
		application.setWebApplicationType(WebApplicationType.SERVLET);
		List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
				"--redlock.nodes[0]=redis://ops:pw-ops-endpoint-1@127.0.0.1:" + fleet.node(0).port(),
				"--redlock.nodes[1]=redis://pw-lone-endpoint-2@127.0.0.1:" + fleet.node(1).port(),
				"--redlock.nodes[2]=redis://127.0.0.1:" + fleet.node(2).port(), "--redlock.restart-guard=false",
				"--redlock.node-timeout=300ms", "--spring.main.banner-mode=off"));
		for (String property : properties) {
			arguments.add("--" + property);
		}
		ConfigurableApplicationContext context = application.run(arguments.toArray(String[]::new));
		RedlockRegistry registry = context.getBean(RedlockRegistry.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> registry.usableNodes() == 3);
		return context;
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ TomcatServletWebServerAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
			WebMvcAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class, JacksonAutoConfiguration.class,
			EndpointAutoConfiguration.class, JacksonEndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class,
			ManagementContextAutoConfiguration.class, ServletManagementContextAutoConfiguration.class,
			RedlockAutoConfiguration.class, RedlockEndpointAutoConfiguration.class })
	static class WebApplication {

	}

}
