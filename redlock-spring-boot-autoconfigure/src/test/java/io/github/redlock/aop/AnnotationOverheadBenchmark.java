package io.github.redlock.aop;

import java.time.Duration;

import io.github.redlock.LockRegistry;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A harness, not a test: prints calls per second of a {@code @DistributedLock} method
 * next to direct acquire+release cycles on the same registry, one thread, 5 local nodes.
 * Run it with
 * {@code ./mvnw -pl redlock-spring-boot-autoconfigure -am verify -Dbenchmarks -Dtest=AnnotationOverheadBenchmark -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("benchmark")
class AnnotationOverheadBenchmark {

	private static final Duration RUN = Duration.ofSeconds(5);

	@Test
	void annotatedCallsPerSecondNextToDirectCycles() {
		try (RedisFleet fleet = RedisFleet.start(5)) {
			new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
				.withUserConfiguration(Config.class)
				.withPropertyValues("redlock.nodes=" + String.join(",", fleet.uris()), "redlock.restart-guard=false")
				.run((context) -> {
					Worker worker = context.getBean(Worker.class);
					LockRegistry registry = context.getBean(LockRegistry.class);
					for (int round = 0; round < 2; round++) { // the first round warms up
						long direct = count(
								() -> registry.acquire("bench", Duration.ofSeconds(10), Duration.ZERO).release());
						long annotated = count(() -> worker.work(7));
						if (round == 1) {
							System.out.printf("direct acquire+release cycles/s, 5 nodes, 1 thread: %,.0f%n",
									direct / (RUN.toNanos() / 1e9));
							System.out.printf("@DistributedLock calls/s, 5 nodes, 1 thread:         %,.0f%n",
									annotated / (RUN.toNanos() / 1e9));
						}
					}
				});
		}
	}

	private static long count(Call call) throws Exception {
		long end = System.nanoTime() + RUN.toNanos();
		long calls = 0;
		while (System.nanoTime() < end) {
			call.run();
			calls++;
		}
		return calls;
	}

	interface Call {

		void run() throws Exception;

	}

	static class Worker {

		@DistributedLock(key = "'bench:' + #id", waitTime = "0s")
		public int work(int id) {
			return id;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Worker worker() {
			return new Worker();
		}

	}

}
