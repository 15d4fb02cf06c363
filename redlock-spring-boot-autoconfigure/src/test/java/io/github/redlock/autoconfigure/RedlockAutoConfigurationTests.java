package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import io.github.redlock.Lease;
import io.github.redlock.LockInfo;
import io.github.redlock.LockRegistry;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.aop.DistributedLockSettings;
import io.github.redlock.aop.LostLockPolicy;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.engine.RedlockSettings;
import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The auto-configuration without servers: nothing connects while beans are created, and
 * the nodes below refuse connections at once.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockAutoConfigurationTests {

	/** Nodes that refuse connections at once. */
	static final String[] NODES = { "redlock.nodes[0]=redis://127.0.0.1:1", "redlock.nodes[1]=redis://127.0.0.1:2",
			"redlock.nodes[2]=redis://127.0.0.1:3" };

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
		.withPropertyValues("redlock.connect-timeout=200ms");

	@Test
	void registryIsConfiguredFromTheNodesWithDefaults() {
		this.contextRunner.withPropertyValues(NODES).run((context) -> {
			assertThat(context).hasSingleBean(LockRegistry.class)
				.hasSingleBean(ClientResources.class)
				.hasSingleBean(RedlockRegistryLifecycle.class);
			RedlockRegistry registry = context.getBean(RedlockRegistry.class);
			assertThat(registry.nodeCount()).isEqualTo(3);
			RedlockSettings settings = registry.settings();
			assertThat(registry.releaseHints()).isTrue();
			assertThat(settings.keyPrefix()).isEqualTo("redlock:");
			assertThat(settings.defaultTtl()).isEqualTo(Duration.ofSeconds(30));
			assertThat(settings.defaultWaitTime()).isEqualTo(Duration.ofSeconds(10));
			assertThat(settings.nodeTimeout()).isEqualTo(Duration.ofMillis(100));
			assertThat(settings.driftFactor()).isEqualTo(0.01);
			assertThat(settings.maxTtl()).isEqualTo(Duration.ofSeconds(60));
			assertThat(settings.restartGuard()).isTrue();
		});
	}

	@Test
	void everyPropertyBinds() {
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.key-prefix=app:", "redlock.default-ttl=20s", "redlock.default-wait-time=3s",
					"redlock.node-timeout=50ms", "redlock.connect-timeout=300ms", "redlock.drift-factor=0.02",
					"redlock.retry-delay=20ms", "redlock.retry-jitter=30ms", "redlock.max-ttl=PT40S",
					"redlock.max-hold=2h", "redlock.fencing-retention=12h", "redlock.restart-guard=false",
					"redlock.order=7", "redlock.release-hints=false")
			.run((context) -> {
				assertThat(context.getBean(RedlockRegistry.class).releaseHints()).isFalse();
				RedlockSettings settings = context.getBean(RedlockRegistry.class).settings();
				assertThat(settings).isEqualTo(
						new RedlockSettings(Duration.ofMillis(50), Duration.ofMillis(300), 0.02, Duration.ofMillis(20),
								Duration.ofMillis(30), "app:", Duration.ofSeconds(20), Duration.ofSeconds(3),
								Duration.ofSeconds(40), Duration.ofHours(2), Duration.ofHours(12), false));
				assertThat(context.getBean(RedlockProperties.class).getOrder()).isEqualTo(7);
			});
	}

	@Test
	void userRegistryBacksOff() {
		this.contextRunner.withPropertyValues(NODES).withUserConfiguration(UserRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(LockRegistry.class)
				.doesNotHaveBean(RedlockRegistry.class)
				.doesNotHaveBean(RedlockRegistryLifecycle.class);
			assertThat(context.getBean(LockRegistry.class)).isSameAs(context.getBean(UserRegistry.class).registry);
		});
	}

	@Test
	void theRedlockPropertiesAreOneConnectionDetailsBean() {
		// issue 25, item 12; failed before the fix: there was no RedlockConnectionDetails
		// bean, the auto-configuration read nodes, credentials and SSL from the
		// properties itself, beside a second path for a connection details bean
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.username=app", "redlock.password=s3cret-pw", "redlock.ssl.enabled=true")
			.run((context) -> {
				assertThat(context).hasSingleBean(RedlockConnectionDetails.class);
				RedlockConnectionDetails details = context.getBean(RedlockConnectionDetails.class);
				assertThat(details.getNodes()).containsExactly("redis://127.0.0.1:1", "redis://127.0.0.1:2",
						"redis://127.0.0.1:3");
				assertThat(details.getUsername()).isEqualTo("app");
				assertThat(details.getPassword()).isEqualTo("s3cret-pw");
				assertThat(details.isSsl()).isTrue();
				assertThat(details.getSslBundle()).isNull();
				assertThat(details.toString()).doesNotContain("s3cret-pw");
			});
	}

	@Test
	void anApplicationsClientResourcesAreNotTaken() {
		// issue 25, item 9; failed before the fix: the registry took the application's
		// (Spring Data Redis's) ClientResources, with Lettuce's reconnect delay of up to
		// 30 s and Boot's Lettuce metrics and tracing, and made none of its own
		this.contextRunner.withPropertyValues(NODES).withUserConfiguration(UserClientResources.class).run((context) -> {
			assertThat(context).hasBean("redlockClientResources").hasSingleBean(RedlockRegistry.class);
			// the application's own injection by type still finds its bean alone
			assertThat(context.getBean(ClientResources.class)).isSameAs(context.getBean("userClientResources"));
			assertThat(context.getBean("redlockClientResources")).isNotSameAs(context.getBean("userClientResources"));
		});
	}

	@Test
	void springDataRedisKeepsItsClientResourcesAndTheRegistryHasItsOwn() {
		// issue 25, item 9; failed before the fix (no redlockClientResources bean)
		this.contextRunner.withPropertyValues(NODES)
			.withConfiguration(AutoConfigurations
				.of(org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasBean("redlockClientResources");
				assertThat(context.getBean(ClientResources.class))
					.isNotSameAs(context.getBean("redlockClientResources"));
			});
	}

	@Test
	void springDataRedisPropertiesWithoutItsAutoConfigurationSayWhatIsMissing() {
		// issue 25, item 8; failed before the fix: "there are no spring.data.redis
		// connection settings", while spring.data.redis.host was set
		this.contextRunner.withPropertyValues("spring.data.redis.host=10.0.0.1")
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.data.redis"))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("spring.data.redis.host is set")
					.hasMessageContaining("spring-boot-data-redis is not on the classpath")
					.hasMessageNotContaining("there are no spring.data.redis connection settings");
			});
	}

	@Test
	void springDataRedisPropertiesWithItsAutoConfigurationExcludedSayWhatIsMissing() {
		// issue 25, item 8; failed before the fix, as above
		this.contextRunner.withPropertyValues("spring.data.redis.url=redis://10.0.0.1:6379").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("spring.data.redis.url is set")
				.hasMessageContaining("DataRedisAutoConfiguration");
		});
	}

	@Test
	void customizersAreApplied() {
		this.contextRunner.withPropertyValues(NODES).withUserConfiguration(Customizers.class).run((context) -> {
			assertThat(context.getBean(RedlockRegistry.class).settings().keyPrefix()).isEqualTo("customized:");
			assertThat(context.getBean(Customizers.class).clientOptionsCalls).hasValue(3);
		});
	}

	@Test
	void nothingIsConfiguredWithoutLettuce() {
		this.contextRunner.withPropertyValues(NODES)
			.withClassLoader(new FilteredClassLoader(RedisClient.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void nothingIsConfiguredWhenDisabled() {
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void noNodesAndNoDataRedisSettingsFailsSayingWhatToAdd() {
		this.contextRunner.run((context) -> assertThat(analysis(context.getStartupFailure())).satisfies((analysis) -> {
			assertThat(analysis.getDescription()).contains("No redlock nodes are configured");
			assertThat(analysis.getAction()).contains("redlock.nodes[0]=redis://");
		}));
	}

	@Test
	void evenNodeCountStartsButWarns(CapturedOutput output) {
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.nodes[3]=redis://127.0.0.1:6")
			.run((context) -> assertThat(context).hasSingleBean(RedlockRegistry.class));
		assertThat(output).contains("redlock.nodes lists 4 nodes: a quorum of 3 tolerates 1 failed node(s)");
	}

	@Test
	void malformedNodeFailsNamingItsIndexWithoutThePassword() {
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.nodes[1]=redis://:s3cret@host:notaport")
			.run((context) -> assertThat(analysis(context.getStartupFailure())).satisfies((analysis) -> {
				assertThat(analysis.getDescription()).contains("redlock.nodes[1]").doesNotContain("s3cret");
				assertThat(analysis.getAction()).contains("redis://[[user]:password@]host:port[/database]");
			}));
	}

	@Test
	void duplicateNodeFails() {
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.nodes[2]=redis://127.0.0.1:1")
			.run((context) -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("redlock.nodes[2] 'redis://127.0.0.1:1' is listed twice"));
	}

	@Test
	void nonPositiveTtlFails() {
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.default-ttl=0s")
			.run((context) -> assertThat(analysis(context.getStartupFailure())).satisfies((analysis) -> {
				assertThat(analysis.getDescription()).contains("redlock.default-ttl must be positive");
				assertThat(analysis.getAction()).contains("30s");
			}));
	}

	@Test
	void nodeTimeoutNotWellBelowTheTtlFails() {
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.node-timeout=2s", "redlock.default-ttl=10s")
			.run((context) -> assertThat(analysis(context.getStartupFailure())).satisfies((analysis) -> {
				assertThat(analysis.getDescription())
					.contains("redlock.node-timeout 2000ms is not well below redlock.default-ttl 10000ms");
				assertThat(analysis.getAction()).contains("at most a tenth of the TTL");
			}));
	}

	@Test
	void keyPrefixWithABraceFails() {
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.key-prefix=app{1}:")
			.run((context) -> assertThat(analysis(context.getStartupFailure())).satisfies((analysis) -> {
				assertThat(analysis.getDescription()).contains("redlock.key-prefix 'app{1}:' holds a brace");
				assertThat(analysis.getAction()).contains("Remove the braces from the prefix");
			}));
	}

	@Test
	void driftFactorOutOfRangeFails() {
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.drift-factor=0.6")
			.run((context) -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("redlock.drift-factor must be at least 0 and below 0.5, was 0.6"));
	}

	// The silent-node options had no property: only a builder customizer could set them.
	// These failed before the properties existed (the context started, the values
	// unbound).
	@Test
	void silentNodeTimeoutsReachTheRegistry() {
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.silent-node-timeouts=0")
			.run((context) -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("redlock.silent-node-timeouts must be at least 1, was 0"));
	}

	@Test
	void silentNodeProbeIntervalReachesTheRegistry() {
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.silent-node-probe-interval=2m")
			.run((context) -> assertThat(analysis(context.getStartupFailure())).satisfies((analysis) -> {
				assertThat(analysis.getDescription()).contains("redlock.silent-node-probe-interval 2m is above 1m");
				assertThat(analysis.getAction()).contains("Probe at most every minute");
			}));
	}

	@Test
	void silentNodeOptionsWithinRangeStart() {
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.silent-node-timeouts=5", "redlock.silent-node-probe-interval=500ms")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RedlockRegistry.class));
	}

	@Test
	void unparseableDurationFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.default-ttl=ten seconds")
			.run((context) -> {
				assertThat(context).hasFailed();
				// Boot's own bind failure analysis names the property and the value
				assertThat(context.getStartupFailure())
					.hasStackTraceContaining("Failed to bind properties under 'redlock.default-ttl'")
					.hasStackTraceContaining("ten seconds");
			});
	}

	@Test
	void applicationThatFailsToStartIsToldWhatToFix(CapturedOutput output) {
		SpringApplication application = new SpringApplication(RedlockOnly.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException()
			.isThrownBy(() -> application.run("--redlock.nodes[0]=redis://127.0.0.1:1", "--redlock.drift-factor=0.9"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Invalid redlock configuration: redlock.drift-factor must be at least 0 and below 0.5, was 0.9")
			.contains("Set it from 0 to below 0.5; 0.01 suits clocks kept by NTP.");
	}

	@Test
	void annotatedMethodsTakeTheirSettingsFromTheProperties() {
		this.contextRunner.withPropertyValues(NODES)
			.run((context) -> assertThat(context).getBean(DistributedLockSettings.class)
				.as("the properties' defaults are the settings' defaults")
				.isEqualTo(DistributedLockSettings.defaults()));
		this.contextRunner.withPropertyValues(NODES)
			.withPropertyValues("redlock.default-ttl=12s", "redlock.default-wait-time=3s", "redlock.node-timeout=50ms",
					"redlock.max-ttl=2m", "redlock.max-hold=10m", "redlock.lost-lock-policy=log")
			.run((context) -> assertThat(context).getBean(DistributedLockSettings.class)
				.isEqualTo(DistributedLockSettings.defaults()
					.withDefaultTtl(Duration.ofSeconds(12))
					.withDefaultWaitTime(Duration.ofSeconds(3))
					.withNodeTimeout(Duration.ofMillis(50))
					.withLeastTtl(Duration.ofMillis(3))
					.withMaxTtl(Duration.ofMinutes(2))
					.withMaxHold(Duration.ofMinutes(10))
					.withLostLockPolicy(LostLockPolicy.LOG)));
	}

	@Test
	void applicationWithAnAnnotationThatCannotWorkIsToldWhatToFix(CapturedOutput output) {
		SpringApplication application = new SpringApplication(RedlockOnly.class, EmptyKey.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--redlock.nodes[0]=redis://127.0.0.1:1"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("@DistributedLock on EmptyKey.run(): attribute key is empty")
			.contains("Action:")
			.contains("Give a SpEL expression such as key = \"#orderId\"");
	}

	@Test
	void applicationWithALockedMethodItsProxyCannotInterceptIsToldWhatToFix(CapturedOutput output) {
		SpringApplication application = new SpringApplication(RedlockOnly.class, FinalMethod.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--redlock.nodes[0]=redis://127.0.0.1:1"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("@DistributedLock on FinalMethod.run(): the method is final")
			.contains("Action:")
			.contains("kotlin-spring");
	}

	private static FailureAnalysis analysis(Throwable failure) {
		assertThat(failure).isNotNull();
		FailureAnalysis analysis = new RedlockConfigurationFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("failure analysis of %s", failure).isNotNull();
		return analysis;
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(RedlockAutoConfiguration.class)
	static class RedlockOnly {

	}

	static class EmptyKey {

		@DistributedLock(key = "")
		public void run() {
		}

	}

	static class FinalMethod {

		@DistributedLock(key = "'final'")
		public final void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserRegistry {

		final LockRegistry registry = new UnusedLockRegistry();

		@Bean
		LockRegistry userLockRegistry() {
			return this.registry;
		}

	}

	/**
	 * A user's own registry; only its identity matters here.
	 */
	static class UnusedLockRegistry implements LockRegistry {

		@Override
		public Lease acquire(String key, Duration ttl, Duration waitTime) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Lease acquire(String key) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Optional<Lease> tryAcquire(String key, Duration ttl) {
			throw new UnsupportedOperationException();
		}

		@Override
		public CompletableFuture<Lease> acquireAsync(String key, Duration ttl, Duration waitTime) {
			throw new UnsupportedOperationException();
		}

		@Override
		public <T> T executeLocked(String key, Duration ttl, Duration waitTime, Callable<T> action) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Lock obtain(String key) {
			throw new UnsupportedOperationException();
		}

		@Override
		public LockInfo inspect(String key) {
			throw new UnsupportedOperationException();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserClientResources {

		@Bean(destroyMethod = "shutdown")
		ClientResources userClientResources() {
			return DefaultClientResources.create();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Customizers {

		final AtomicInteger clientOptionsCalls = new AtomicInteger();

		@Bean
		RedlockRegistryBuilderCustomizer prefixCustomizer() {
			return (builder) -> builder.keyPrefix("customized:");
		}

		@Bean
		RedlockClientOptionsCustomizer countingCustomizer() {
			return (options) -> this.clientOptionsCalls.incrementAndGet();
		}

	}

}
