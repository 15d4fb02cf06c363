package io.github.redlock.embedded.service.connection;

import java.time.Duration;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedlockServiceConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A TLS fleet that asks for client certificates: the connection details carry an SSL
 * bundle that trusts the fleet's CA and presents its client certificate, so the registry
 * locks over TLS with no {@code redlock.ssl.*} property.
 */
@SpringBootTest(classes = TlsServiceConnectionIntegrationTests.Config.class, properties = "redlock.default-ttl=2s")
class TlsServiceConnectionIntegrationTests {

	@RedlockServiceConnection
	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.tlsNodes(3, true);

	@Autowired
	private RedlockConnectionDetails connectionDetails;

	@Autowired
	private LockRegistry locks;

	@Test
	void theContextLocksOverTlsWithTheFleetsCertificates() throws Exception {
		assertThat(this.connectionDetails.getNodes()).isEqualTo(fleet.uris())
			.allMatch((uri) -> uri.startsWith("rediss://"));
		assertThat(this.connectionDetails.getSslBundle()).isNotNull();
		try (Lease lease = this.locks.acquire("tls", Duration.ofSeconds(2), Duration.ofSeconds(5))) {
			assertThat(fleet.fleet().nodes()).filteredOn((node) -> node.call("GET", "redlock:lock:{tls}") != null)
				.hasSizeGreaterThanOrEqualTo(2);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(RedlockAutoConfiguration.class)
	static class Config {

	}

}
