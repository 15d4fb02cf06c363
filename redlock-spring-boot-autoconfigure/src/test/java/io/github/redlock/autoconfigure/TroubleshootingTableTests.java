package io.github.redlock.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.LongStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.annotation.DistributedLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The Spring half of keeping the README's troubleshooting table true (issue 12, item 8):
 * the rows that start-up and the annotation produce. The engine's rows, and the check
 * that every row has a case, are in {@code redlock-core}'s
 * {@code TroubleshootingTableIntegrationTests}. No server is needed: the nodes below
 * refuse connections, and nothing here locks.
 */
@ExtendWith(OutputCaptureExtension.class)
class TroubleshootingTableTests {

	private static final String[] NODES = RedlockAutoConfigurationTests.NODES;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
		.withPropertyValues("redlock.connect-timeout=200ms");

	@Test
	void everySpringRowQuotesWhatItsCaseProduces(CapturedOutput output) throws Exception {
		Map<String, Supplier<String>> cases = new LinkedHashMap<>();
		cases.put("is not a valid URI", () -> startupFailure("redlock.nodes[1]=redis://:s3cret@host:notaport"));
		cases.put("is listed twice", () -> startupFailure("redlock.nodes[2]=redis://127.0.0.1:1"));
		cases.put("is not well below", () -> startupFailure("redlock.node-timeout=2s", "redlock.default-ttl=10s"));
		cases.put("No redlock nodes are configured", this::noNodes);
		cases.put("Both redlock.nodes and redlock.clusters are set",
				() -> startupFailure("redlock.clusters[0]=redis://127.0.0.1:4"));
		cases.put("one comma-separated string of", () -> {
			String[] description = new String[1];
			this.contextRunner.withPropertyValues("redlock.clusters=redis://127.0.0.1:4,redis://127.0.0.1:5")
				.run((context) -> description[0] = new RedlockConfigurationFailureAnalyzer()
					.analyze(context.getStartupFailure())
					.getDescription());
			return description[0];
		});
		cases.put("locking on the single Spring Data Redis server", () -> {
			this.contextRunner
				.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, SslAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=4")
				.run((context) -> assertThat(context).hasNotFailed());
			return output.toString();
		});
		cases.put("is not a valid SpEL expression", () -> annotationFailure(BadKey.class));
		cases.put("is not a duration", () -> annotationFailure(BadTtl.class));
		cases.put("every call would run unlocked", () -> annotationFailure(FinalMethod.class));
		cases.put("evaluated to null", this::nullKey);
		cases.put("more than redlock.max-keys", this::tooManyKeys);
		cases.put("names no SSL bundle", () -> {
			String[] message = new String[1];
			this.contextRunner.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
				.withPropertyValues(NODES)
				.withPropertyValues("redlock.ssl.bundle=nodez")
				.run((context) -> message[0] = rootMessage(context.getStartupFailure()));
			return message[0];
		});
		List<String> untrue = new ArrayList<>();
		int checked = 0;
		for (String quote : quotes()) {
			String row = cases.keySet().stream().filter(quote::contains).findFirst().orElse(null);
			if (row == null) {
				continue;
			}
			checked++;
			String message = cases.get(row).get();
			if (!matches(quote, message)) {
				untrue.add("docs/troubleshooting.md quotes\n  " + quote + "\nthe case produces\n  " + message);
			}
		}
		assertThat(untrue).as("quotes that do not match their case").isEmpty();
		assertThat(checked).as("Spring rows found in docs/troubleshooting.md").isEqualTo(cases.size());
	}

	private String startupFailure(String... properties) {
		String[] description = new String[1];
		this.contextRunner.withPropertyValues(NODES).withPropertyValues(properties).run((context) -> {
			FailureAnalysis analysis = new RedlockConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).as("failure analysis").isNotNull();
			description[0] = analysis.getDescription();
		});
		return description[0];
	}

	private String noNodes() {
		String[] description = new String[1];
		this.contextRunner.run((context) -> description[0] = new RedlockConfigurationFailureAnalyzer()
			.analyze(context.getStartupFailure())
			.getDescription());
		return description[0];
	}

	private String annotationFailure(Class<?> configuration) {
		String[] message = new String[1];
		this.contextRunner.withPropertyValues(NODES)
			.withUserConfiguration(configuration)
			.run((context) -> message[0] = String.valueOf(context.getStartupFailure()) + " "
					+ rootMessage(context.getStartupFailure()));
		return message[0];
	}

	private String nullKey() {
		String[] message = new String[1];
		this.contextRunner.withPropertyValues(NODES).withUserConfiguration(NullKey.class).run((context) -> {
			NullKeyOrders orders = context.getBean(NullKeyOrders.class);
			message[0] = String.valueOf(catchThrowable(() -> orders.pay(null)).getMessage());
		});
		return message[0];
	}

	private String tooManyKeys() {
		String[] message = new String[1];
		this.contextRunner.withPropertyValues(NODES).withUserConfiguration(NullKey.class).run((context) -> {
			NullKeyOrders orders = context.getBean(NullKeyOrders.class);
			List<Long> ids = LongStream.range(0, 250).boxed().toList();
			message[0] = String.valueOf(catchThrowable(() -> orders.payAll(ids)).getMessage());
		});
		return message[0];
	}

	private static String rootMessage(Throwable failure) {
		Throwable root = failure;
		while (root != null && root.getCause() != null) {
			root = root.getCause();
		}
		return (root != null) ? root.getMessage() : "(no failure)";
	}

	/** Whether the message contains the quote's pieces between {@code …}, in order. */
	private static boolean matches(String quote, String message) {
		String actual = String.valueOf(message).replaceAll("\\d+", "#");
		int from = 0;
		for (String piece : quote.split("…")) {
			int at = actual.indexOf(piece.replaceAll("\\d+", "#"), from);
			if (at < 0) {
				return false;
			}
			from = at + piece.replaceAll("\\d+", "#").length();
		}
		return true;
	}

	private static List<String> quotes() throws Exception {
		// the table moved from the README to docs/troubleshooting.md (issue 26)
		String text = Files.readString(Path.of("..", "docs", "troubleshooting.md"));
		int start = text.indexOf("## Messages");
		int end = text.indexOf("\n## ", start + 1);
		Matcher row = Pattern.compile("(?m)^\\| `([^`]+)`")
			.matcher(text.substring(start, (end < 0) ? text.length() : end));
		List<String> quotes = new ArrayList<>();
		while (row.find()) {
			quotes.add(row.group(1));
		}
		return quotes;
	}

	public static class NullKeyOrders {

		@DistributedLock(key = "#id")
		public void pay(Long id) {
		}

		@DistributedLock(key = "#ids")
		public void payAll(List<Long> ids) {
		}

	}

	public static class BadKeyOrders {

		@DistributedLock(key = "'order:' +")
		public void run(long id) {
		}

	}

	public static class BadTtlOrders {

		@DistributedLock(key = "'nightly'", ttl = "ten")
		public void nightly() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadKey {

		@Bean
		BadKeyOrders orders() {
			return new BadKeyOrders();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadTtl {

		@Bean
		BadTtlOrders orders() {
			return new BadTtlOrders();
		}

	}

	public static class FinalMethodOrders {

		@DistributedLock(key = "#id")
		public final void pay(long id) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FinalMethod {

		@Bean
		FinalMethodOrders orders() {
			return new FinalMethodOrders();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NullKey {

		@Bean
		NullKeyOrders orders() {
			return new NullKeyOrders();
		}

	}

}
