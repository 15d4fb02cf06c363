package io.github.redlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static io.github.redlock.aop.LockedServices.assertReleased;
import static io.github.redlock.aop.LockedServices.lockedOn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The lock's promise on the asynchronous and reactive paths (issue 11, items 1 and 2):
 * one holder at a time per call, nothing of a method before its lock is held, and no user
 * code on Lettuce's I/O threads. Each test failed before its fix, as its comment says.
 */
class AsyncAndReactivePromiseIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
		.withUserConfiguration(Config.class)
		.withPropertyValues(FleetProperties.of(fleet, "redlock.node-timeout=250ms"));

	@BeforeEach
	void shareFleet() {
		LockedServices.fleet = fleet.fleet();
	}

	@Test
	void asyncMethodCalledTwiceByOneThreadNeverRunsTwoBodiesAtOnce() {
		// failed before the fix: the second call re-entered the first call's lease by
		// thread, so both bodies ran at once with the same fencing token
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CompletableFuture<String> firstGate = new CompletableFuture<>();
			CompletableFuture<Long> first = service.charge(firstGate);
			// a failed acquisition is a failed stage (issue 25, item 2)
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> service.charge(new CompletableFuture<>()).get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockAcquisitionException.class)
				.withMessageContaining("Could not acquire lock 'payment'");
			assertThat(service.running()).as("bodies running").isEqualTo(1);
			firstGate.complete("done");
			long firstToken = first.get(10, TimeUnit.SECONDS);
			CompletableFuture<String> secondGate = CompletableFuture.completedFuture("done");
			long secondToken = service.charge(secondGate).get(10, TimeUnit.SECONDS);
			assertThat(secondToken).isGreaterThan(firstToken);
			assertReleased("payment");
		});
	}

	@Test
	void asyncMethodInsideABlockingLockOfTheSameKeyDoesNotReenterIt() {
		// failed before the fix: the async call re-entered the blocking lease by thread
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			try (Lease held = context.getBean(io.github.redlock.LockRegistry.class)
				.acquire("payment", Duration.ofSeconds(10), Duration.ZERO)) {
				assertThat(held.isHeld()).isTrue();
				assertThatExceptionOfType(ExecutionException.class)
					.isThrownBy(() -> service.charge(CompletableFuture.completedFuture("x")).get(10, TimeUnit.SECONDS))
					.withCauseInstanceOf(LockAcquisitionException.class);
			}
		});
	}

	@Test
	void continuationsOfALockedFutureDoNotRunOnLettuceThreads() {
		// failed before the fix: the caller's future completed on the thread that
		// received the release's reply
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CompletableFuture<String> gate = new CompletableFuture<>();
			CompletableFuture<String> thread = service.charge(gate)
				.thenApply((token) -> Thread.currentThread().getName());
			Thread completer = new Thread(() -> gate.complete("done"), "test-completer");
			completer.start();
			assertThat(thread.get(10, TimeUnit.SECONDS)).doesNotContain("lettuce");
		});
	}

	@Test
	void reactiveMethodBodyRunsOnlyOnceTheLockIsHeld() {
		// failed before the fix: the method ran when the pipeline was assembled, so its
		// side effect happened with no lock held, and again on every subscription
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			Mono<Integer> charge = service.charge();
			assertThat(service.calls()).as("calls before subscription").isZero();
			StepVerifier.create(charge).expectNextMatches((locked) -> locked >= 2).verifyComplete();
			assertThat(service.calls()).isEqualTo(1);
			assertThat(service.lockedAtCall()).containsExactly(true);
			StepVerifier.create(charge).expectNextMatches((locked) -> locked >= 2).verifyComplete();
			assertThat(service.calls()).isEqualTo(2);
			assertReleased("reactive-charge");
		});
	}

	@Test
	void reactivePipelinesDoNotRunOnLettuceThreads() {
		// failed before the fix: the locked pipeline was subscribed to on the thread
		// that received the acquisition's reply
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			// held elsewhere first, so that the pipeline's lease surely arrives later,
			// with
			// a node's reply
			Lease held = context.getBean(io.github.redlock.LockRegistry.class)
				.acquire("reactive-thread", Duration.ofSeconds(10), Duration.ZERO);
			CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS).execute(held::release);
			StepVerifier.create(service.threadName())
				.expectNextMatches((name) -> !name.contains("lettuce"))
				.verifyComplete();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		AsyncService asyncService() {
			return new AsyncService();
		}

		@Bean
		ReactiveService reactiveService() {
			return new ReactiveService();
		}

	}

	static class AsyncService {

		final AtomicInteger running = new AtomicInteger();

		@DistributedLock(key = "'payment'", waitTime = "500ms")
		public CompletableFuture<Long> charge(CompletableFuture<String> gate) {
			this.running.incrementAndGet();
			long token = CurrentLease.get().fencingToken();
			return gate.thenApply((value) -> {
				this.running.decrementAndGet();
				return token;
			});
		}

		public int running() {
			return this.running.get();
		}

	}

	static class ReactiveService {

		final AtomicInteger calls = new AtomicInteger();

		final List<Boolean> lockedAtCall = new CopyOnWriteArrayList<>();

		@DistributedLock(key = "'reactive-charge'")
		public Mono<Integer> charge() {
			this.calls.incrementAndGet();
			int locked = lockedOn("reactive-charge");
			this.lockedAtCall.add(locked >= 2);
			return Mono.just(locked);
		}

		@DistributedLock(key = "'reactive-thread'")
		public Mono<String> threadName() {
			return Mono.fromCallable(() -> Thread.currentThread().getName());
		}

		public int calls() {
			return this.calls.get();
		}

		public List<Boolean> lockedAtCall() {
			return this.lockedAtCall;
		}

	}

}
