package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.Lease;
import io.github.redlock.LockLostException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Many leases lost at once (every node flushed while hundreds are held, as when a quorum
 * loses its data) write a bounded number of lines to the log: each loss is still told to
 * its holder and to the registry's listeners, but the log gets a few of them one by one
 * and then one line that counts the rest, so that an incident does not bury the lines
 * that say what happened to the nodes. When every loss wrote its own warning, this test
 * failed: 300 warnings of about 200 characters each.
 */
class LostLeasesLogIntegrationTests {

	private static final int LEASES = 300;

	private static final Duration TTL = Duration.ofSeconds(1);

	private static final Pattern SUMMARY = Pattern.compile("(\\d+) more locks were lost");

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	@Test
	void aMassLossLogsAFewLinesAndCountsTheRest() throws Exception {
		AtomicInteger told = new AtomicInteger();
		try (LogCapture log = LogCapture.of(Level.WARNING, "io.github.redlock.engine")) {
			RedlockRegistry registry = this.registries
				.start(TestRegistries.builder(fleet).maxTtl(TTL).defaultTtl(TTL).listener(new RegistryListener() {

					@Override
					public void lost(String key, Duration held, LockLostException cause) {
						told.incrementAndGet();
					}

				}));
			List<Lease> leases = new ArrayList<>();
			for (int i = 0; i < LEASES; i++) {
				leases.add(registry.acquire("mass-" + i, TTL, Duration.ofSeconds(10)));
			}
			long flushed = System.nanoTime();
			for (int i = 0; i < 3; i++) {
				RedisNode node = fleet.node(i);
				node.call("FLUSHALL");
			}
			await().atMost(Duration.ofSeconds(30)).until(() -> told.get() == LEASES);
			assertThat(leases).noneMatch(Lease::isHeld);
			long windows = 1 + (System.nanoTime() - flushed) / Duration.ofSeconds(10).toNanos();
			// every loss is in the log once: its own line, or counted in a summary, which
			// comes at the end of its ten seconds at the latest
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				List<String> lines = log.lines();
				assertThat(lines(lines, " was lost: ") + summarized(lines)).isEqualTo(LEASES);
			});
			List<String> lines = log.lines();
			assertThat(lines(lines, " was lost: ")).isPositive().isLessThanOrEqualTo(10 * windows + 10);
			assertThat(lines(lines, "more locks were lost")).isPositive().isLessThanOrEqualTo(windows + 1);
			assertThat(log.lines("more locks were lost").get(0)).contains("'mass-").contains("LockLostException");
		}
	}

	private static long lines(List<String> lines, String containing) {
		return lines.stream().filter((line) -> line.contains(containing)).count();
	}

	private static int summarized(List<String> lines) {
		int sum = 0;
		for (String line : lines) {
			Matcher matcher = SUMMARY.matcher(line);
			if (matcher.find()) {
				sum += Integer.parseInt(matcher.group(1));
			}
		}
		return sum;
	}

}
