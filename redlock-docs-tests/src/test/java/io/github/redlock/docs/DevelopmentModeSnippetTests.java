package io.github.redlock.docs;

import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import io.github.redlock.docs.DocsSnippetsTests.Snippet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/testing.md's development-mode snippet works as written (issue 41, item 3): run as
 * {@code main} runs it, on a thread with no test framework on its stack, it starts local
 * nodes and locks on them. Before, the snippet lacked
 * {@code redlock.embedded.enabled=true} and start-up failed with
 * {@code EmbeddedNodesRefusedException}; with it, an application whose
 * {@code spring.main.web-application-type} differs from the one Boot deduces (here
 * {@code none} beside Spring MVC) started the nodes, then failed with "No redlock nodes
 * are configured": the nodes' properties went to the environment that Boot replaces by a
 * converted copy.
 */
class DevelopmentModeSnippetTests {

	private static final AtomicReference<ConfigurableApplicationContext> started = new AtomicReference<>();

	@Test
	void theDevelopmentModeSnippetStartsNodesAndLocksOutsideATest(@TempDir Path output) throws Exception {
		List<Snippet> snippets = DocsSnippetsTests.snippets()
			.stream()
			.filter((snippet) -> snippet.file.endsWith("testing.md")
					&& snippet.code().contains("SpringApplication.from("))
			.toList();
		assertThat(snippets).as("the development-mode snippet of docs/testing.md").hasSize(1);
		assertThat(DocsSnippetsTests.compile(snippets, output)).isEmpty();
		String enabled = System.getProperty("redlock.embedded.enabled");
		AtomicReference<Throwable> failure = new AtomicReference<>();
		try (URLClassLoader loader = new URLClassLoader(new URL[] { output.toUri().toURL() },
				getClass().getClassLoader())) {
			Class<?> main = loader.loadClass(snippets.get(0).className());
			String[] args = { "--spring.main.web-application-type=none",
					"--spring.main.sources=" + Capture.class.getName() };
			// as a main thread: no test framework on its stack
			Thread thread = new Thread(() -> run(main, args, failure), "development-mode-snippet");
			thread.start();
			thread.join(Duration.ofMinutes(2).toMillis());
			assertThat(failure.get()).as("the snippet's start-up failure").isNull();
			ConfigurableApplicationContext context = started.get();
			assertThat(context).as("the snippet's application context").isNotNull();
			try (Lease lease = context.getBean(LockRegistry.class)
				.acquire("development-mode", Duration.ofSeconds(10), Duration.ofSeconds(10))) {
				assertThat(lease.isHeld()).isTrue();
			}
		}
		finally {
			ConfigurableApplicationContext context = started.getAndSet(null);
			if (context != null) {
				context.close();
			}
			if (enabled == null) {
				System.clearProperty("redlock.embedded.enabled");
			}
			else {
				System.setProperty("redlock.embedded.enabled", enabled);
			}
		}
	}

	private static void run(Class<?> main, String[] args, AtomicReference<Throwable> failure) {
		try {
			main.getMethod("main", String[].class).invoke(null, (Object) args);
		}
		catch (InvocationTargetException ex) {
			failure.set(ex.getCause());
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			failure.set(ex);
		}
	}

	/** Added to the snippet's sources: hands its application context to the test. */
	public static class Capture implements ApplicationContextAware {

		@Override
		public void setApplicationContext(ApplicationContext context) {
			started.set((ConfigurableApplicationContext) context);
		}

	}

}
