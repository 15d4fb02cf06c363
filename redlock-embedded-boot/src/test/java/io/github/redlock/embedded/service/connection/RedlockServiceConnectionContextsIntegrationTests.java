package io.github.redlock.embedded.service.connection;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedlockServiceConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * Two test classes with fleets of their own, run through the JUnit launcher as a build
 * would run them: each gets a context of its own (a shared cached context would lock on
 * the other's nodes), the context closes after its class, and its fleet stops with it.
 */
class RedlockServiceConnectionContextsIntegrationTests {

	static final Map<String, ConfigurableApplicationContext> contexts = new ConcurrentHashMap<>();

	static final Map<String, List<String>> nodes = new ConcurrentHashMap<>();

	@Test
	void eachFleetGetsAContextOfItsOwnThatClosesAfterItsClassAndStopsTheFleet() {
		SummaryGeneratingListener summary = new SummaryGeneratingListener();
		LauncherFactory.create()
			.execute(request().selectors(selectClass(FirstFleet.class), selectClass(SecondFleet.class)).build(),
					summary);
		assertThat(summary.getSummary().getFailures()).isEmpty();
		assertThat(summary.getSummary().getTestsSucceededCount()).isEqualTo(2);
		assertThat(contexts.get("first")).isNotSameAs(contexts.get("second"));
		assertThat(nodes.get("first")).doesNotContainAnyElementsOf(nodes.get("second"));
		assertThat(contexts.values()).noneMatch(ConfigurableApplicationContext::isActive);
		await().atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(nodes.values().stream().flatMap(List::stream))
				.noneMatch(RedlockServiceConnectionContextsIntegrationTests::accepts));
	}

	private static boolean accepts(String uri) {
		URI parsed = URI.create(uri);
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(parsed.getHost(), parsed.getPort()), 1000);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	abstract static class FleetUser {

		@Autowired
		private LockRegistry locks;

		@Autowired
		private RedlockConnectionDetails connectionDetails;

		@Autowired
		private ConfigurableApplicationContext context;

		void locksOnItsOwnFleet(String name, RedisFleetExtension fleet) throws Exception {
			contexts.put(name, this.context);
			nodes.put(name, fleet.uris());
			assertThat(this.connectionDetails.getNodes()).isEqualTo(fleet.uris());
			try (Lease lease = this.locks.acquire(name, Duration.ofSeconds(2), Duration.ofSeconds(5))) {
				assertThat(fleet.node(0).call("GET", "redlock:lock:{" + name + "}")).isNotNull();
			}
		}

	}

	@SpringBootTest(classes = Config.class)
	static class FirstFleet extends FleetUser {

		@RedlockServiceConnection
		@RegisterExtension
		static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

		@Test
		void locks() throws Exception {
			locksOnItsOwnFleet("first", fleet);
		}

	}

	@SpringBootTest(classes = Config.class)
	static class SecondFleet extends FleetUser {

		// without @RegisterExtension: the context starts the fleet itself
		@RedlockServiceConnection
		static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

		@Test
		void locks() throws Exception {
			locksOnItsOwnFleet("second", fleet);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(RedlockAutoConfiguration.class)
	static class Config {

	}

}
