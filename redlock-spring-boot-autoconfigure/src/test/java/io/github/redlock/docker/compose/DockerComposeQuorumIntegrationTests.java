package io.github.redlock.docker.compose;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.redlock.Lease;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import io.github.redlock.autoconfigure.RedlockNodeConnectionDetails;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.lifecycle.DockerComposeServicesReadyEvents;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.SimpleApplicationEventMulticaster;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A {@code compose.yaml} with three Redis services labelled for redlock and one for the
 * application's cache, through Spring Boot's own Docker Compose listener: everything
 * Spring Boot does after {@code docker compose up} and {@code ps}, which need a Docker
 * engine, with each service's port mapped to a real node.
 * <p>
 * Failed before the factory: the labelled services gave no connection details (no factory
 * took the name {@code redlock}: "Expecting actual: {}"), and the registry started on the
 * cache service alone, the Spring Data Redis fallback of one node.
 */
class DockerComposeQuorumIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(4);

	@RegisterExtension
	static final RedisFleetExtension tlsFleet = RedisFleetExtension.tlsNodes(3, false);

	@Test
	void threeLabelledServicesAreTheQuorumAndTheUnlabelledOneIsTheCache() throws Exception {
		// listed as docker compose ps might list them: not in the order of their names
		List<RunningService> services = List.of(TestRunningService.redlock("shop-redlock3-1", "redis:7.4", port(2)),
				TestRunningService.redis("shop-cache-1", port(3)),
				TestRunningService.redlock("shop-redlock1-1", "valkey/valkey:8.0", port(0)),
				TestRunningService.redlock("shop-redlock2-1", "redis:7.4", port(1)));
		try (ConfigurableApplicationContext context = run(services)) {
			assertThat(context.getBeansOfType(RedlockNodeConnectionDetails.class)).containsOnlyKeys(
					"redlockNodeConnectionDetailsForShopRedlock11", "redlockNodeConnectionDetailsForShopRedlock21",
					"redlockNodeConnectionDetailsForShopRedlock31");
			assertThat(context.getBean(RedlockConnectionDetails.class).getNodes())
				.isEqualTo(fleet.uris().subList(0, 3));
			RedlockRegistry registry = context.getBean(RedlockRegistry.class);
			try (Lease lease = registry.acquire("order:1", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
				assertThat(fleet.fleet().nodes().subList(0, 3))
					.filteredOn((node) -> node.call("GET", "redlock:lock:{order:1}") != null)
					.hasSizeGreaterThanOrEqualTo(2);
			}
			context.getBean(StringRedisTemplate.class).opsForValue().set("cart:7", "2 items");
			assertThat(fleet.node(3).call("GET", "cart:7")).isEqualTo("2 items");
			assertThat(fleet.node(3).call("EXISTS", "redlock:lock:{order:1}")).isEqualTo(0L);
		}
	}

	@Test
	void springBootsSslBundleLabelsGiveTheQuorumTls() throws Exception {
		String ca = tlsFleet.certificates().caCertificate().toString();
		List<RunningService> services = List.of(0, 1, 2)
			.stream()
			.<RunningService>map(
					(i) -> new TestRunningService("shop-redlock" + i + "-1", "redis:7.4", tlsFleet.node(i).port(),
							Map.of(TestRunningService.LABEL, "redlock",
									"org.springframework.boot.sslbundle.pem.truststore.certificate", ca)))
			.toList();
		try (ConfigurableApplicationContext context = run(services)) {
			assertThat(context.getBean(RedlockConnectionDetails.class).getNodes()).isEqualTo(tlsFleet.uris());
			try (Lease lease = context.getBean(RedlockRegistry.class)
				.acquire("order:2", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
				assertThat(lease.isHeld()).isTrue();
			}
		}
	}

	@Test
	void threeUnlabelledRedisServicesAreSpringDataRedissAndAmbiguous() {
		// the problem the label solves: Spring Boot makes one Redis connection per
		// service, and its Redis auto-configuration cannot choose
		List<RunningService> services = List.of(TestRunningService.redis("shop-redis1-1", port(0)),
				TestRunningService.redis("shop-redis2-1", port(1)), TestRunningService.redis("shop-redis3-1", port(2)));
		assertThatException().isThrownBy(() -> run(services).close())
			.havingRootCause()
			.isInstanceOf(NoUniqueBeanDefinitionException.class)
			.withMessageContaining(DataRedisConnectionDetails.class.getName());
	}

	private static int port(int node) {
		return fleet.node(node).port();
	}

	/**
	 * Starts the application as Spring Boot's Docker Compose support does once the
	 * services run: its event goes to the application's listeners, among them Spring
	 * Boot's own that registers the connection details.
	 */
	private static ConfigurableApplicationContext run(List<RunningService> services) {
		SpringApplication application = new SpringApplication(Config.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setDefaultProperties(Map.of("redlock.connect-timeout", "1s"));
		application.addListeners((ApplicationListener<ApplicationPreparedEvent>) (prepared) -> {
			SimpleApplicationEventMulticaster multicaster = new SimpleApplicationEventMulticaster();
			prepared.getSpringApplication().getListeners().forEach(multicaster::addApplicationListener);
			multicaster.multicastEvent(DockerComposeServicesReadyEvents.of(prepared.getApplicationContext(), services));
		});
		return application.run();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, RedlockAutoConfiguration.class })
	static class Config {

	}

}
