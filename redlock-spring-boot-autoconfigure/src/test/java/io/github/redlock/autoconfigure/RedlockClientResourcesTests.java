package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.resource.DefaultClientResources;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The registry's Lettuce resources end with the context and never hold its close longer
 * than their bound. A full build once hung for minutes in a context's close, Spring
 * waiting on the {@code Future} of {@code DefaultClientResources.shutdown()}, the
 * resources' former destroy method, after a test had killed two nodes; Spring waits for a
 * destroy method's {@code Future} without a limit.
 */
class RedlockClientResourcesTests {

	@Test
	void closingDoesNotWaitPastItsBoundForAShutdownThatNeverEnds() {
		NeverShutDown resources = new NeverShutDown();
		// well above the bound, well below a hang
		assertTimeoutPreemptively(Duration.ofSeconds(30), resources::close);
		assertThat(resources.asked).isTrue();
	}

	@Test
	void theContextShutsTheRegistrysResourcesDownWhenItCloses() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
			.withPropertyValues("redlock.nodes=redis://127.0.0.1:1,redis://127.0.0.1:2,redis://127.0.0.1:3",
					"redlock.connect-timeout=200ms")
			.run((context) -> {
				RedlockClientResources resources = context.getBean(RedlockClientResources.class);
				context.close();
				assertThat(resources.eventExecutorGroup().isShuttingDown()).isTrue();
			});
	}

	/** Resources whose shutdown is asked for, but whose future never completes. */
	static final class NeverShutDown extends RedlockClientResources {

		volatile boolean asked;

		NeverShutDown() {
			super(DefaultClientResources.builder());
		}

		@Override
		public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit timeUnit) {
			this.asked = true;
			super.shutdown(quietPeriod, timeout, timeUnit); // the threads still end
			return new DefaultPromise<>(ImmediateEventExecutor.INSTANCE);
		}

	}

}
