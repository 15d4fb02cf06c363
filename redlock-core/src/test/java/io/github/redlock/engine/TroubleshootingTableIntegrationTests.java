package io.github.redlock.engine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.embedded.TestCertificates;
import io.github.redlock.engine.quorum.FleetAvailability;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * Keeps the README's troubleshooting table true (issue 12, item 8): every message it
 * quotes is produced here, or in the Spring module's twin of this test, by the case the
 * row describes, and must contain the quoted text. In a quote, {@code …} stands for any
 * text and every number for any number. A row added to the table without a case here or
 * there fails the test.
 */
class TroubleshootingTableIntegrationTests {

	/** Rows the Spring module's {@code TroubleshootingTableTests} produces. */
	static final List<String> SPRING_ROWS = List.of("is not a valid URI", "is listed twice", "is not well below",
			"No redlock nodes are configured", "locking on the single Spring Data Redis server",
			"is not a valid SpEL expression", "is not a duration", "names #", "evaluated to null",
			"more than redlock.max-keys", "names no SSL bundle", "every call would run unlocked",
			"Both redlock.nodes and redlock.clusters are set", "one comma-separated string of");

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	private final List<RedlockRegistry> registries = new ArrayList<>();

	@AfterEach
	void close() {
		this.registries.forEach(RedlockRegistry::close);
		for (RedisNode node : fleet.fleet().nodes()) {
			if (node.isRunning() && !node.isPaused()) {
				node.call("CONFIG", "SET", "maxmemory", "0");
				node.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
			}
		}
	}

	@Test
	void everyQuotedMessageIsWhatTheCaseProduces() throws Exception {
		Map<String, ThrowingSupplier> cases = new LinkedHashMap<>();
		cases.put("already held", this::held);
		cases.put("refused (", this::majorityDown);
		cases.put("timed out (", this::majorityPaused);
		cases.put("may evict locks", this::evicting);
		cases.put("listed twice (the same server", this::sameServerTwice);
		cases.put("recently restarted (restarted", this::restarted);
		cases.put("is new or was flushed", this::newFleet);
		cases.put("leaves no validity", this::tooSlow);
		cases.put("was lost", this::lost);
		cases.put("more locks were lost", this::manyLost);
		cases.put("NOPERM", this::noPermission);
		cases.put("cannot run Lua scripts", this::noScripting);
		cases.put("Redlock cannot lock at all", this::cannotLockAtAll);
		cases.put("is above the maximum TTL", this::ttlAboveTheMaximum);
		cases.put("authentication failed (WRONGPASS", this::wrongPassword);
		cases.put("certificate is not trusted", () -> tls(RedisNode.ServerCertificate.LOCALHOST));
		cases.put("certificate is for another host name", () -> tls(RedisNode.ServerCertificate.OTHER_HOST));
		List<String> quotes = quotes();
		assertThat(quotes).as("quoted messages in docs/troubleshooting.md").hasSizeGreaterThan(10);
		List<String> unowned = new ArrayList<>();
		List<String> untrue = new ArrayList<>();
		for (String quote : quotes) {
			String row = cases.keySet().stream().filter(quote::contains).findFirst().orElse(null);
			if (row == null) {
				if (SPRING_ROWS.stream().noneMatch(quote::contains)) {
					unowned.add(quote);
				}
				continue;
			}
			fleet.fleet().heal();
			String message = cases.get(row).get();
			close();
			this.registries.clear();
			if (!matches(quote, message)) {
				untrue.add("docs/troubleshooting.md quotes\n  " + quote + "\nthe case produces\n  " + message);
			}
		}
		assertThat(untrue).as("quotes that do not match their case").isEmpty();
		assertThat(unowned).as("docs/troubleshooting.md rows with no case that produces them").isEmpty();
	}

	/**
	 * Whether {@code message} contains the pieces of {@code quote} between its {@code …},
	 * in order, with any number standing for any number.
	 */
	static boolean matches(String quote, String message) {
		String actual = String.valueOf(message).replaceAll("\\d+", "#");
		int from = 0;
		for (String piece : quote.split("…")) {
			String expected = piece.replaceAll("\\d+", "#");
			int at = actual.indexOf(expected, from);
			if (at < 0) {
				return false;
			}
			from = at + expected.length();
		}
		return true;
	}

	/** The first quoted text of each row of the table in docs/troubleshooting.md. */
	static List<String> quotes() throws Exception {
		// the table moved from the README to docs/troubleshooting.md (issue 26)
		Path page = Path.of("..", "docs", "troubleshooting.md");
		String text = Files.readString(page);
		int start = text.indexOf("## Messages");
		int end = text.indexOf("\n## ", start + 1);
		end = (end < 0) ? text.length() : end;
		List<String> quotes = new ArrayList<>();
		Matcher row = Pattern.compile("(?m)^\\| `([^`]+)`").matcher(text.substring(start, end));
		while (row.find()) {
			quotes.add(row.group(1));
		}
		return quotes;
	}

	private String ttlAboveTheMaximum() {
		RedlockRegistry registry = track(TestRegistries.builder(fleet).build());
		return failure(() -> registry.acquire("x", Duration.ofMinutes(2), Duration.ZERO));
	}

	private String wrongPassword() {
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("ACL", "SETUSER", "default", "resetpass", ">right");
		}
		try {
			RedlockRegistry registry = track(
					TestRegistries.builder(fleet).username("default").password("wrong").build().start());
			await().atMost(Duration.ofSeconds(10)).until(() -> registry.checkNodes().get(0).problem() != null);
			return registry.checkNodes().get(0).toString();
		}
		finally {
			for (RedisNode node : fleet.fleet().nodes()) {
				// the kit's connections send no password: a restart forgets it
				node.kill();
				node.start();
			}
		}
	}

	/**
	 * A TLS node whose certificate the registry cannot accept: from a CA the JVM does not
	 * trust, or (trusting the CA) for another host name.
	 */
	private String tls(RedisNode.ServerCertificate certificate) throws Exception {
		try (TestCertificates certificates = TestCertificates.generate();
				RedisNode node = RedisNode.startTls("tls-row", new RedisNode.Tls(certificates, false, certificate))) {
			RedlockRegistry.Builder builder = RedlockRegistry.builder().nodes(node.uri()).restartGuard(false);
			if (certificate == RedisNode.ServerCertificate.OTHER_HOST) {
				builder.sslOptions(TlsIntegrationTests.ssl(certificates, false));
			}
			RedlockRegistry registry = track(builder.build().start());
			await().atMost(Duration.ofSeconds(10)).until(() -> registry.checkNodes().get(0).problem() != null);
			return registry.checkNodes().get(0).toString();
		}
	}

	private String held() throws Exception {
		RedlockRegistry registry = registry(false);
		// held by another process: a waiter behind a lease of its own registry makes one
		// attempt, at its deadline, and says "(1 attempt)"
		RedlockRegistry other = registry(false);
		try (Lease lease = other.acquire("x", Duration.ofSeconds(2), Duration.ZERO, true)) {
			return fromAnotherThread(() -> registry.acquire("x", Duration.ofSeconds(2), Duration.ofSeconds(1)));
		}
	}

	private String majorityDown() {
		fleet.node(0).kill();
		fleet.node(1).kill();
		fleet.node(2).kill();
		RedlockRegistry registry = registry(false);
		return failure(() -> registry.acquire("x", Duration.ofSeconds(2), Duration.ofSeconds(2)));
	}

	private String majorityPaused() {
		RedlockRegistry registry = registry(false);
		fleet.node(0).pause();
		fleet.node(1).pause();
		fleet.node(2).pause();
		return failure(() -> registry.acquire("x", Duration.ofSeconds(2), Duration.ZERO));
	}

	private String evicting() {
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("CONFIG", "SET", "maxmemory", "104857600");
			node.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
		}
		RedlockRegistry registry = registry(false);
		return failure(() -> registry.acquire("x", Duration.ofSeconds(2), Duration.ZERO));
	}

	private String sameServerTwice() {
		List<String> uris = new ArrayList<>(fleet.uris().subList(0, 4));
		uris.add("redis://localhost:" + fleet.node(0).port());
		RedlockRegistry registry = track(TestRegistries.builder(uris).build().start());
		await().atMost(Duration.ofSeconds(10)).until(() -> registry.checkNodes().get(4).problem() != null);
		return registry.checkNodes().get(4).toString();
	}

	private String restarted() throws Exception {
		RedlockRegistry registry = registry(true);
		awaitUsable(registry);
		Thread.sleep(1100); // the marker older than the restart by a second at least
		fleet.node(0).restart(true);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> String.valueOf(registry.checkNodes().get(0).problem()).contains("(restarted"));
		return registry.checkNodes().get(0).toString();
	}

	private String newFleet() {
		RedlockRegistry registry = registry(true);
		return failure(() -> registry.acquire("x", Duration.ofSeconds(1), Duration.ZERO));
	}

	private String tooSlow() {
		AtomicLong offset = new AtomicLong();
		RedlockRegistry registry = track(TestRegistries.builder(fleet)
			.tune((options) -> options.clock = () -> System.nanoTime() + offset.get())
			.build()
			.start());
		for (int i = 0; i < registry.parts().fleet.size(); i++) {
			registry.parts().fleet.node(i).afterTrustCheck(() -> offset.addAndGet(TimeUnit.SECONDS.toNanos(10)));
		}
		return failure(() -> registry.acquire("x", Duration.ofSeconds(2), Duration.ZERO));
	}

	private String lost() throws Exception {
		RedlockRegistry registry = registry(false);
		Lease lease = registry.acquire("x", Duration.ofSeconds(1), Duration.ZERO, true);
		CompletableFuture<String> message = new CompletableFuture<>();
		lease.addListener((ignored, cause) -> message.complete(cause.getMessage()));
		fleet.node(0).kill();
		fleet.node(1).kill();
		fleet.node(2).kill();
		return message.get(10, TimeUnit.SECONDS);
	}

	private String manyLost() throws Exception {
		try (LogCapture log = LogCapture.of(Level.WARNING, "io.github.redlock.engine.lease")) {
			RedlockRegistry registry = registry(false);
			List<Lease> leases = new ArrayList<>();
			for (int i = 0; i < 20; i++) {
				leases.add(registry.acquire("job-" + i, Duration.ofSeconds(1), Duration.ZERO, true));
			}
			for (RedisNode node : fleet.fleet().nodes()) {
				node.call("FLUSHALL");
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> leases.stream().noneMatch(Lease::isHeld));
			// closing writes the summary at once rather than at the end of its period
			registry.close();
			return log.lines("more locks were lost").get(0);
		}
	}

	private String noPermission() {
		List<String> uris = new ArrayList<>();
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("ACL", "SETUSER", "app", "reset", "on", ">app-secret", "~*", "+@all", "-@dangerous");
			uris.add("redis://app:app-secret@127.0.0.1:" + node.port());
		}
		RedlockRegistry registry = track(TestRegistries.builder(uris).build().start());
		return failure(() -> registry.acquire("x", Duration.ofSeconds(2), Duration.ZERO));
	}

	private String noScripting() {
		List<String> uris = new ArrayList<>();
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("ACL", "SETUSER", "app", "reset", "on", ">app-secret", "~*", "+@all", "-@scripting");
			uris.add("redis://app:app-secret@127.0.0.1:" + node.port());
		}
		RedlockRegistry registry = track(TestRegistries.builder(uris).build().start());
		return failure(() -> registry.acquire("x", Duration.ofSeconds(2), Duration.ZERO));
	}

	private String cannotLockAtAll() {
		try (LogCapture log = LogCapture.of(Level.INFO, FleetAvailability.class)) {
			registry(true);
			return log.lines("cannot lock").stream().findFirst().orElse("(none)");
		}
	}

	private RedlockRegistry registry(boolean guard) {
		return track(RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(guard)
			.defaultTtl(Duration.ofSeconds(2))
			.maxTtl(Duration.ofSeconds(2))
			.build()
			.start());
	}

	private RedlockRegistry track(RedlockRegistry registry) {
		this.registries.add(registry);
		return registry;
	}

	private static void awaitUsable(RedlockRegistry registry) {
		await().atMost(Duration.ofSeconds(20)).until(() -> registry.checkNodes().stream().allMatch(NodeStatus::usable));
	}

	private static String failure(ThrowingRunnable action) {
		Throwable failure = catchThrowableOfType(Throwable.class, action::run);
		assertThat(failure).as("the case's failure").isNotNull();
		return failure.getMessage();
	}

	private static String fromAnotherThread(ThrowingRunnable action) throws Exception {
		String[] message = new String[1];
		Thread thread = new Thread(() -> message[0] = failure(action));
		thread.start();
		thread.join();
		return message[0];
	}

	@FunctionalInterface
	interface ThrowingRunnable {

		void run() throws Exception;

	}

	@FunctionalInterface
	interface ThrowingSupplier {

		String get() throws Exception;

	}

}
