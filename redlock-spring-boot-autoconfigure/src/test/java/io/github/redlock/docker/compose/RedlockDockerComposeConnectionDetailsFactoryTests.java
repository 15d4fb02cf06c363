package io.github.redlock.docker.compose;

import java.util.HashMap;
import java.util.Map;

import io.github.redlock.autoconfigure.RedlockNodeConnectionDetails;
import io.github.redlock.embedded.TestCertificates;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSources;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which running services become nodes of the quorum, given as Spring Boot's listener
 * gives them: the labelled ones, whatever their image, and never an unlabelled
 * {@code redis} service, which stays Spring Data Redis's.
 */
class RedlockDockerComposeConnectionDetailsFactoryTests {

	private final RedlockDockerComposeConnectionDetailsFactory factory = new RedlockDockerComposeConnectionDetailsFactory();

	@Test
	void aLabelledServiceIsANodeNamedAfterItsContainer() {
		RedlockNodeConnectionDetails node = node(TestRunningService.redlock("shop-redlock1-1", "redis:7.4", 32768));
		assertThat(node).isNotNull();
		assertThat(node.getName()).isEqualTo("shop-redlock1-1");
		assertThat(node.getHost()).isEqualTo("127.0.0.1");
		assertThat(node.getPort()).isEqualTo(32768);
		assertThat(node.getSslBundle()).isNull();
		assertThat(node).hasToString("redlock node of the Docker Compose service shop-redlock1-1");
	}

	@Test
	void valkeyAndKeydbServicesAreNodesWhenLabelled() {
		assertThat(node(TestRunningService.redlock("shop-valkey-1", "valkey/valkey:8.0", 32769))).isNotNull();
		assertThat(node(TestRunningService.redlock("shop-keydb-1", "eqalpha/keydb:x86_64_v6.3.4", 32770))).isNotNull();
	}

	@Test
	void anUnlabelledRedisServiceIsNoNode() {
		assertThat(node(TestRunningService.redis("shop-cache-1", 32771))).isNull();
	}

	@Test
	void springBootGivesALabelledServiceOnlyANodeAndAnUnlabelledOneOnlyItsRedisConnection() {
		// every factory on the class path, Spring Boot's Redis one included
		ConnectionDetailsFactories factories = new ConnectionDetailsFactories(null);
		assertThat(all(factories, TestRunningService.redlock("shop-redlock1-1", "redis:7.4", 32768)))
			.containsOnlyKeys(RedlockNodeConnectionDetails.class);
		assertThat(all(factories, TestRunningService.redis("shop-cache-1", 32771)))
			.containsOnlyKeys(DataRedisConnectionDetails.class);
	}

	@Test
	void springBootsSslBundleLabelsGiveTheNodeItsBundle() {
		try (TestCertificates certificates = TestCertificates.generate()) {
			Map<String, String> labels = new HashMap<>(Map.of(TestRunningService.LABEL, "redlock"));
			labels.put("org.springframework.boot.sslbundle.pem.truststore.certificate",
					certificates.caCertificate().toString());
			RedlockNodeConnectionDetails node = node(
					new TestRunningService("shop-redlock1-1", "redis:7.4", 32768, labels));
			assertThat(node.getSslBundle()).isNotNull();
			assertThat(node.getSslBundle().getStores().getTrustStore()).isNotNull();
		}
	}

	private RedlockNodeConnectionDetails node(RunningService service) {
		return this.factory.getConnectionDetails(DockerComposeConnectionSources.of(service, new StandardEnvironment()));
	}

	private static Map<Class<?>, ConnectionDetails> all(ConnectionDetailsFactories factories, RunningService service) {
		return factories.getConnectionDetails(DockerComposeConnectionSources.of(service, new StandardEnvironment()),
				false);
	}

}
