package io.github.redlock.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockRegistry;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.reactivestreams.Publisher;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static io.github.redlock.aop.LockedServices.assertReleased;
import static io.github.redlock.aop.LockedServices.lockedOn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Every return type is either locked until its work is done or refused at start-up (issue
 * 25, items 1 and 2), and the failures of an asynchronous method arrive in its result,
 * where {@code exceptionally()} and {@code onErrorResume} see them. Each test failed
 * before its fix, as its comment says.
 */
class ReturnTypesIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
		.withPropertyValues(FleetProperties.of(fleet, "redlock.node-timeout=250ms"));

	@BeforeEach
	void shareFleet() {
		LockedServices.fleet = fleet.fleet();
	}

	@Test
	void publisherMethodHoldsItsLockUntilThePublisherIsDone() {
		// failed before the fix: Publisher took the blocking path, so the lock was
		// released when the method returned and the work ran unlocked (expected 2 or 3
		// nodes holding the lock, saw 0)
		this.contextRunner.withUserConfiguration(PublisherConfig.class).run((context) -> {
			PublisherService service = context.getBean(PublisherService.class);
			StepVerifier.create(service.publisher()).expectNextMatches((locked) -> locked >= 2).verifyComplete();
			assertThat(service.calls()).isEqualTo(1);
			assertReleased("publisher");
		});
	}

	@Test
	void flowPublisherMethodHoldsItsLockUntilThePublisherIsDone() {
		// failed before the fix, as for Publisher
		this.contextRunner.withUserConfiguration(PublisherConfig.class).run((context) -> {
			PublisherService service = context.getBean(PublisherService.class);
			StepVerifier.create(JdkFlowAdapter.flowPublisherToFlux(service.flowPublisher()))
				.expectNextMatches((locked) -> locked >= 2)
				.verifyComplete();
			assertReleased("flow-publisher");
		});
	}

	@Test
	void futureMethodIsRefusedAtStartUp() {
		// failed before the fix: the context started, and each call released its lock
		// as soon as the method returned its Future
		this.contextRunner.withUserConfiguration(FutureConfig.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidDistributedLockException.class)
				.hasMessageContaining("FutureService.start()")
				.hasMessageContaining("java.util.concurrent.Future");
		});
	}

	@Test
	void completionStageSubtypeTheLockCannotCreateIsRefusedAtStartUp() {
		// failed before the fix: a CompletionStage type other than CompletionStage or
		// CompletableFuture took the blocking path, unlocked at return
		this.contextRunner.withUserConfiguration(StageSubtypeConfig.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidDistributedLockException.class)
				.hasMessageContaining("MyStage");
		});
	}

	@Test
	void completionStageAcquisitionFailureIsAFailedStage() {
		// failed before the fix: LockAcquisitionException was thrown on the calling
		// thread, and the caller's exceptionally() never saw it
		this.contextRunner.withUserConfiguration(AsyncConfig.class).run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			try (Lease held = context.getBean(LockRegistry.class)
				.acquire("stage:1", Duration.ofSeconds(10), Duration.ZERO)) {
				assertThat(held.isHeld()).isTrue();
				CompletableFuture<String> result = service.charge(1L).toCompletableFuture();
				Throwable failure = catchThrowable(() -> result.get(10, TimeUnit.SECONDS));
				assertThat(failure).hasCauseInstanceOf(LockAcquisitionException.class);
				assertThat(service.calls()).isZero();
			}
		});
	}

	@Test
	void completionStageBadKeyIsAFailedStage() {
		// failed before the fix: IllegalArgumentException thrown on the calling thread
		this.contextRunner.withUserConfiguration(AsyncConfig.class).run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CompletableFuture<String> result = service.charge(null).toCompletableFuture();
			Throwable failure = catchThrowable(() -> result.get(10, TimeUnit.SECONDS));
			assertThat(failure).hasCauseInstanceOf(IllegalArgumentException.class)
				.hasMessageContaining("evaluated to null");
		});
	}

	@Test
	void monoBadKeyIsAnErrorOfTheMono() {
		// failed before the fix: IllegalArgumentException thrown at assembly, so
		// onErrorResume never saw it
		this.contextRunner.withUserConfiguration(PublisherConfig.class).run((context) -> {
			PublisherService service = context.getBean(PublisherService.class);
			Mono<String> result = service.mono(null);
			StepVerifier.create(result.onErrorResume(IllegalArgumentException.class, (ex) -> Mono.just("recovered")))
				.expectNext("recovered")
				.verifyComplete();
		});
	}

	@Test
	void fluxBadKeyIsAnErrorOfTheFlux() {
		// failed before the fix, as for Mono
		this.contextRunner.withUserConfiguration(PublisherConfig.class).run((context) -> {
			PublisherService service = context.getBean(PublisherService.class);
			StepVerifier.create(service.flux(null)).expectError(IllegalArgumentException.class).verify();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class PublisherConfig {

		@Bean
		PublisherService publisherService() {
			return new PublisherService();
		}

	}

	static class PublisherService {

		final AtomicInteger calls = new AtomicInteger();

		@DistributedLock(key = "'publisher'")
		public Publisher<Integer> publisher() {
			this.calls.incrementAndGet();
			return Flux.defer(() -> Flux.just(lockedOn("publisher")));
		}

		public int calls() {
			return this.calls.get();
		}

		@DistributedLock(key = "'flow-publisher'")
		public Flow.Publisher<Integer> flowPublisher() {
			return JdkFlowAdapter.publisherToFlowPublisher(Mono.fromCallable(() -> lockedOn("flow-publisher")));
		}

		@DistributedLock(key = "#id")
		public Mono<String> mono(Long id) {
			return Mono.just("ran");
		}

		@DistributedLock(key = "#id")
		public Flux<String> flux(Long id) {
			return Flux.just("ran");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AsyncConfig {

		@Bean
		AsyncService asyncService() {
			return new AsyncService();
		}

	}

	static class AsyncService {

		final AtomicInteger calls = new AtomicInteger();

		@DistributedLock(key = "#id == null ? null : 'stage:' + #id", waitTime = "0s")
		public CompletionStage<String> charge(Long id) {
			this.calls.incrementAndGet();
			return CompletableFuture.completedFuture("charged");
		}

		public int calls() {
			return this.calls.get();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FutureConfig {

		@Bean
		FutureService futureService() {
			return new FutureService();
		}

	}

	static class FutureService {

		@DistributedLock(key = "'future'")
		public Future<String> start() {
			return CompletableFuture.completedFuture("started");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class StageSubtypeConfig {

		@Bean
		StageSubtypeService stageSubtypeService() {
			return new StageSubtypeService();
		}

	}

	static class StageSubtypeService {

		@DistributedLock(key = "'my-stage'")
		public MyStage<String> start() {
			return new MyStage<>();
		}

	}

	static class MyStage<T> extends CompletableFuture<T> {

	}

}
