package io.github.redlock.engine;

import java.lang.instrument.Instrumentation;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.engine.waiting.WaitingLine;
import io.github.redlock.embedded.RedisFleetExtension;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.matcher.ElementMatchers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A waiter's first attempt may be run by a hand-off on another thread before
 * {@code Waiting.enter} has returned its place to the acquisition that entered: the
 * waiter before it gives up (or gets the lock) between the two. The acquisition must then
 * wait as any other, not act as one that may not wait.
 * <p>
 * A loaded machine's scheduler makes this interleaving rarely (CI on 2026-11-27:
 * {@code AsyncReadWriteAndPermitIntegrationTests.asyncPermitsNeverExceedTheCountAndTheirTokensGrow}
 * failed at once with "within 40s (1 attempt)"); here it is forced: an advice on
 * {@code Waiting.enter}'s exit holds the entering thread until the hand-off's attempt has
 * ended. Before the fix, {@link #anAttemptHandedOffBeforeEnterReturnedWaitsAsAnyOther}
 * failed: the acquisition failed at once, "held by another owner" after 1 attempt, 20 s
 * before its wait time was spent, since the refused attempt found no place in the line to
 * retry from.
 */
class EnterHandOffIntegrationTests {

	private static final String KEY = "enter-hand-off";

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	private static ResettableClassFileTransformer transformer;

	private static Instrumentation instrumentation;

	@BeforeAll
	static void holdEnteringThreads() {
		instrumentation = ByteBuddyAgent.install();
		transformer = new AgentBuilder.Default().disableClassFormatChanges()
			.with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
			.type(ElementMatchers.named("io.github.redlock.engine.waiting.Waiting"))
			.transform((builder, type, loader, module, domain) -> builder
				.visit(Advice.to(AfterEnter.class).on(ElementMatchers.named("enter"))))
			.installOn(instrumentation);
	}

	@AfterAll
	static void release() {
		transformer.reset(instrumentation, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
	}

	@Test
	void anAttemptHandedOffBeforeEnterReturnedWaitsAsAnyOther() throws Exception {
		List<LockAcquisitionException> failures = new CopyOnWriteArrayList<>();
		RedlockRegistry holder = this.registries.start(TestRegistries.builder(fleet));
		RedlockRegistry mine = this.registries
			.start(TestRegistries.builder(fleet).retryDelay(Duration.ofMillis(200)).listener(new RegistryListener() {
				@Override
				public void notAcquired(String key, Duration took, LockAcquisitionException failure) {
					failures.add(failure);
				}
			}));
		Lease held = holder.acquire(KEY, TTL, Duration.ofSeconds(5));
		CompletableFuture<Lease> first = mine.acquireAsync(KEY, TTL, Duration.ofSeconds(60));
		await().atMost(Duration.ofSeconds(20))
			.until(() -> WaitingLine.of(mine.parts().waiting(), KEY).waitersAre(WaitingLine.Phase.SLEEPING));

		Hold hold = Hold.arm();
		CompletableFuture<CompletableFuture<Lease>> entering = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			hold.thread = Thread.currentThread();
			try {
				entering.complete(mine.acquireAsync(KEY, TTL, Duration.ofSeconds(20)));
			}
			catch (RuntimeException | Error ex) {
				entering.completeExceptionally(ex);
			}
		}, "entering");
		try {
			thread.start();
			assertThat(hold.entered.await(20, TimeUnit.SECONDS)).as("the advice held the entering thread").isTrue();
			assertThat(WaitingLine.of(mine.parts().waiting(), KEY)
				.waitersAre(WaitingLine.Phase.SLEEPING, WaitingLine.Phase.QUEUED)).isTrue();
			// the head gives up: the second becomes the head and attempts at once, on
			// this
			// thread, while its own thread has not yet had its place back from enter
			first.cancel(false);
			await().atMost(Duration.ofSeconds(20))
				.until(() -> !failures.isEmpty()
						|| WaitingLine.of(mine.parts().waiting(), KEY).waitersAre(WaitingLine.Phase.SLEEPING));
		}
		finally {
			hold.proceed.countDown();
			thread.join(TimeUnit.SECONDS.toMillis(20));
		}
		CompletableFuture<Lease> second = entering.get(20, TimeUnit.SECONDS);
		// a cancelled acquisition is not told as not acquired: any failure is the
		// second's
		assertThat(failures).isEmpty();
		assertThat(second).isNotDone();
		held.release();
		Lease taken = second.get(30, TimeUnit.SECONDS);
		assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
		taken.release();
	}

	/** Holds the thread that arms it just after {@code Waiting.enter} returned. */
	public static final class Hold {

		private static volatile Hold armed;

		volatile Thread thread;

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch proceed = new CountDownLatch(1);

		static Hold arm() {
			Hold hold = new Hold();
			armed = hold;
			return hold;
		}

		/** Called by the advice on every return from {@code Waiting.enter}. */
		public static void afterEnter() {
			Hold hold = armed;
			if (hold == null || hold.thread != Thread.currentThread()) {
				return;
			}
			armed = null;
			hold.entered.countDown();
			try {
				hold.proceed.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	/** Inlined into {@code Waiting.enter}'s exits. */
	static final class AfterEnter {

		@Advice.OnMethodExit
		static void exit() {
			Hold.afterEnter();
		}

	}

}
