package io.github.redlock.autoconfigure.observation;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.time.Duration;
import java.util.Collections;
import java.util.Properties;

import io.github.redlock.LockRegistry;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.observation.DefaultLockAcquisitionObservationConvention;
import io.github.redlock.observation.LockAcquisitionContext;
import io.github.redlock.observation.ObservationLockObserver;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The observation auto-configuration with Boot's own, against real nodes.
 */
class RedlockObservationAutoConfigurationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, RedlockAutoConfiguration.class,
				RedlockObservationAutoConfiguration.class))
		.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
		.withPropertyValues(FleetProperties.of(fleet, "redlock.node-timeout=200ms"));

	@Test
	void locksAreObservedWhenTheApplicationHasAnObservationRegistry() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(ObservationLockObserver.class);
			context.getBean(LockRegistry.class)
				.acquire("observed", Duration.ofSeconds(2), Duration.ofSeconds(1))
				.close();
			assertThat(context.getBean(TestObservationRegistry.class)).hasNumberOfObservationsEqualTo(2)
				.hasObservationWithNameEqualTo("redlock.acquisition")
				.that()
				.hasLowCardinalityKeyValue("redlock.outcome", "acquired")
				.hasHighCardinalityKeyValue("redlock.key", "observed")
				.backToTestObservationRegistry()
				.hasObservationWithNameEqualTo("redlock.hold")
				.that()
				.hasLowCardinalityKeyValue("redlock.outcome", "released");
		});
	}

	@Test
	void observationsAreTurnedOffAsBootTurnsOffAnyObservation() {
		this.contextRunner.withPropertyValues("management.observations.enable.redlock=false").run((context) -> {
			context.getBean(LockRegistry.class).acquire("quiet", Duration.ofSeconds(2), Duration.ofSeconds(1)).close();
			assertThat(context.getBean(TestObservationRegistry.class)).doesNotHaveAnyObservation();
		});
	}

	@Test
	void aConventionBeanReplacesTheDefault() {
		this.contextRunner.withBean(DefaultLockAcquisitionObservationConvention.class, () -> new Tenanted())
			.run((context) -> {
				context.getBean(LockRegistry.class)
					.acquire("tenant", Duration.ofSeconds(2), Duration.ofSeconds(1))
					.close();
				assertThat(context.getBean(TestObservationRegistry.class))
					.hasObservationWithNameEqualTo("redlock.acquisition")
					.that()
					.hasLowCardinalityKeyValue("tenant", "acme")
					.hasLowCardinalityKeyValue("redlock.outcome", "acquired");
			});
	}

	/**
	 * A reactive caller's observation is in the Reactor context, not a thread local:
	 * before ReactiveLocking restored it around the acquisition, the acquisition had no
	 * parent (this test failed).
	 */
	@Test
	void aReactiveAcquisitionIsAChildOfTheObservationInTheSubscribersContext() {
		this.contextRunner.withBean(ReactiveJob.class).run((context) -> {
			TestObservationRegistry observations = context.getBean(TestObservationRegistry.class);
			Observation request = Observation.start("request", observations);
			String result = context.getBean(ReactiveJob.class)
				.run()
				.contextWrite(Context.of(ObservationThreadLocalAccessor.KEY, request))
				.block(Duration.ofSeconds(10));
			request.stop();
			assertThat(result).isEqualTo("done");
			assertThat(observations).hasObservationWithNameEqualTo("redlock.acquisition")
				.that()
				.hasLowCardinalityKeyValue("redlock.mode", "async")
				.hasParentObservationEqualTo(request)
				.backToTestObservationRegistry()
				.hasObservationWithNameEqualTo("redlock.hold")
				.that()
				.hasParentObservationEqualTo(request);
		});
	}

	@Test
	void absentWhenRedlockIsDisabled() {
		// issue 25, item 11; failed before the fix: redlock.enabled=false left the
		// observer and its customizer in the context
		this.contextRunner.withPropertyValues("redlock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(ObservationLockObserver.class)
				.doesNotHaveBean("redlockObserverBuilderCustomizer"));
	}

	/**
	 * Issue 25, item 11: ordered after RedlockAutoConfiguration in the metadata that Boot
	 * sorts auto-configurations by (sorting a list in a test proves nothing here: the two
	 * names sort alphabetically in that order already). Failed with
	 * {@code after = RedlockAutoConfiguration.class} removed: the entry named
	 * ObservationAutoConfiguration alone.
	 */
	@Test
	void runsAfterRedlockAutoConfiguration() throws IOException {
		Properties metadata = new Properties();
		for (URL url : Collections
			.list(getClass().getClassLoader().getResources("META-INF/spring-autoconfigure-metadata.properties"))) {
			try (InputStream in = url.openStream()) {
				metadata.load(in);
			}
		}
		assertThat(metadata.getProperty(RedlockObservationAutoConfiguration.class.getName() + ".AutoConfigureAfter"))
			.contains(RedlockAutoConfiguration.class.getName());
	}

	@Test
	void absentWithoutAnObservationRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockObservationAutoConfiguration.class))
			.withPropertyValues(FleetProperties.of(fleet))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ObservationLockObserver.class));
	}

	@Test
	void absentWithoutMicrometerObservation() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockObservationAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(ObservationRegistry.class))
			.withPropertyValues(FleetProperties.of(fleet))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ObservationLockObserver.class));
	}

	static class ReactiveJob {

		@DistributedLock(key = "'reactive'", ttl = "2s", waitTime = "1s")
		public Mono<String> run() {
			return Mono.just("done");
		}

	}

	static class Tenanted extends DefaultLockAcquisitionObservationConvention {

		@Override
		public KeyValues getLowCardinalityKeyValues(LockAcquisitionContext context) {
			return super.getLowCardinalityKeyValues(context).and("tenant", "acme");
		}

	}

}
