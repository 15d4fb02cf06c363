package io.github.redlock.autoconfigure;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The development mode shuts down quietly (issue 41, item 6): the registry closes before
 * the local nodes stop, whether the context is closed or the JVM is told to stop (Ctrl-C,
 * SIGTERM), when Spring Boot's shutdown hook and the nodes' reaper run at once.
 */
@ExtendWith(OutputCaptureExtension.class)
class DevelopmentModeShutdownIntegrationTests {

	private static final String READY = "development-mode-application-ready";

	@Test
	void closingTheApplicationLogsNoUnavailability(CapturedOutput output) throws Exception {
		ConfigurableApplicationContext context = run();
		lockOnce(context);
		int from = output.length();
		context.close();
		assertThat(output.toString().substring(from)).contains("Stopped the embedded redis-server nodes")
			.doesNotContain("Redlock cannot lock")
			.doesNotContain("is down");
	}

	/**
	 * Before the reaper waited for the application context, the nodes were killed while
	 * the registry still ran: "Redlock cannot lock at all: 2 of 5 nodes usable, 3 needed.
	 * 4 nodes are down or unreachable." and "Redlock node ... is down" lines at every
	 * stop.
	 */
	@Test
	void stoppingTheJvmLogsNoUnavailability() throws Exception {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				"-Dredlock.embedded.enabled=true", "-Dspring.docker.compose.enabled=false", Main.class.getName())
			.redirectErrorStream(true)
			.start();
		StringBuilder output = new StringBuilder();
		CountDownLatch ready = new CountDownLatch(1);
		CompletableFuture<Void> reading = CompletableFuture.runAsync(() -> read(process, output, ready));
		try {
			long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
			while (!ready.await(1, TimeUnit.SECONDS) && process.isAlive() && System.nanoTime() < deadline) {
				// waits for the application, unless it failed
			}
			assertThat(ready.getCount()).as("the application started: %s", output).isZero();
			int from;
			synchronized (output) {
				from = output.length();
			}
			// SIGTERM, as a container stop or Ctrl-C; Process.destroy() would close the
			// output
			process.toHandle().destroy();
			assertThat(process.waitFor(1, TimeUnit.MINUTES)).as("the JVM exited").isTrue();
			reading.get(30, TimeUnit.SECONDS);
			String shutdown;
			synchronized (output) {
				shutdown = output.substring(from);
			}
			assertThat(shutdown).as(shutdown)
				.contains("Stopped the embedded redis-server nodes")
				.doesNotContain("Redlock cannot lock")
				.doesNotContain("is down");
		}
		finally {
			process.destroyForcibly();
		}
	}

	private static void read(Process process, StringBuilder output, CountDownLatch ready) {
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = lines.readLine()) != null) {
				synchronized (output) {
					output.append(line).append('\n');
				}
				if (line.contains(READY)) {
					ready.countDown();
				}
			}
		}
		catch (Exception ex) {
			synchronized (output) {
				output.append(ex).append('\n');
			}
		}
	}

	private static ConfigurableApplicationContext run() {
		SpringApplication application = new SpringApplication(LockingApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		return application.run();
	}

	private static void lockOnce(ConfigurableApplicationContext context) throws InterruptedException {
		try (Lease lease = context.getBean(LockRegistry.class)
			.acquire("shutdown", Duration.ofSeconds(10), Duration.ofSeconds(10))) {
			assertThat(lease.isHeld()).isTrue();
		}
	}

	/**
	 * The development mode in a JVM of its own, outside a test: it locks once, says so,
	 * and runs until the JVM is stopped.
	 */
	public static final class Main {

		private Main() {
		}

		public static void main(String[] args) throws Exception {
			lockOnce(run());
			System.out.println(READY);
			Thread.currentThread().join();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(RedlockAutoConfiguration.class)
	static class LockingApplication {

		@Bean
		GracefulShutdown gracefulShutdown() {
			return new GracefulShutdown();
		}

	}

	/**
	 * Stands for a web server's graceful shutdown, as the sample has: a lifecycle stopped
	 * before the registry, which takes a while to let requests under way finish.
	 */
	static class GracefulShutdown implements SmartLifecycle {

		private volatile boolean running;

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			try {
				Thread.sleep(1000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return SmartLifecycle.DEFAULT_PHASE - 1024;
		}

	}

}
