package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.Map;

import io.github.redlock.Lease;
import io.github.redlock.autoconfigure.health.RedlockHealthContributorAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.TestCertificates;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.health.RedlockHealthIndicator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * TLS by properties (issue 13, item 3): {@code redlock.ssl.bundle} names a Spring Boot
 * SSL bundle with the private CA and the client certificate, against TLS-only nodes that
 * require the client certificate; and the Spring Data Redis fallback with its own bundle,
 * which the starter used to ignore (it then sent the password in cleartext).
 */
class SslBundleIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.tlsNodes(3, true);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedlockAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class))
		.withPropertyValues("redlock.restart-guard=false", "redlock.connect-timeout=1s");

	private static String[] bundle(String name) {
		TestCertificates certificates = fleet.certificates();
		String prefix = "spring.ssl.bundle.pem." + name + ".";
		return new String[] { prefix + "truststore.certificate=file:" + certificates.caCertificate(),
				prefix + "keystore.certificate=file:" + certificates.clientCertificate(),
				prefix + "keystore.private-key=file:" + certificates.clientKey() };
	}

	@Test
	void aBundleGivesTrustAndTheClientCertificateToEveryNodeAndImpliesTls() {
		// plain redis:// URIs: the bundle implies TLS; one URI waives host name checks
		this.contextRunner.withPropertyValues(bundle("nodes"))
			.withPropertyValues("redlock.ssl.bundle=nodes",
					"redlock.nodes[0]=" + fleet.uris().get(0).replace("rediss://", "redis://"),
					"redlock.nodes[1]=" + fleet.uris().get(1).replace("rediss://", "redis://"),
					"redlock.nodes[2]=" + fleet.uris().get(2) + "?verifyPeer=CA")
			.run((context) -> {
				RedlockRegistry registry = context.getBean(RedlockRegistry.class);
				try (Lease lease = registry.acquire("bundle", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
					assertThat(lease.isHeld()).isTrue();
				}
				assertThat(registry.toString()).doesNotContain("redis://127");
				Health health = context.getBean(RedlockHealthIndicator.class).health();
				assertThat(node(health, 0)).doesNotContainKey("warning");
				assertThat(node(health, 2)).containsEntry("status", "UP")
					.hasEntrySatisfying("warning",
							(warning) -> assertThat((String) warning).contains("does not verify the host name"));
			});
	}

	@Test
	void withTlsButNotTheBundleTheNodesAreNotTrusted() {
		this.contextRunner.withPropertyValues(bundle("nodes"))
			.withPropertyValues("redlock.ssl.enabled=true", "redlock.nodes[0]=" + fleet.uris().get(0),
					"redlock.nodes[1]=" + fleet.uris().get(1), "redlock.nodes[2]=" + fleet.uris().get(2))
			.run((context) -> await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(context.getBean(RedlockRegistry.class).checkNodes())
					.allSatisfy((status) -> assertThat(status.problem()).contains("not trusted"))));
	}

	@Test
	void aBundleThatDoesNotExistFailsStartUpNamingIt() {
		this.contextRunner.withPropertyValues(bundle("nodes"))
			.withPropertyValues("redlock.ssl.bundle=nodez", "redlock.nodes[0]=" + fleet.uris().get(0))
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("redlock.ssl.bundle 'nodez' names no SSL bundle")
				.hasMessageContaining("spring.ssl.bundle.pem.nodez")
				.hasMessageContaining("[nodes]"));
	}

	@Test
	void theSpringDataRedisFallbackUsesItsSslBundle() {
		String uri = fleet.uris().get(0);
		String port = uri.substring(uri.lastIndexOf(':') + 1);
		this.contextRunner.withPropertyValues(bundle("redis"))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
					"spring.data.redis.ssl.bundle=redis")
			.run((context) -> {
				RedlockRegistry registry = context.getBean(RedlockRegistry.class);
				assertThat(registry.toString()).contains("rediss://127.0.0.1:" + port);
				try (Lease lease = registry.acquire("fallback", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
					assertThat(lease.isHeld()).isTrue();
				}
			});
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> node(Health health, int index) {
		Map<String, Map<String, Object>> nodes = (Map<String, Map<String, Object>>) health.getDetails().get("nodes");
		return nodes.values().stream().skip(index).findFirst().orElseThrow();
	}

}
