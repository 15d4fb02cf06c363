package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.node.NodeTrust;
import io.github.redlock.engine.quorum.FleetAvailability;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What operators read when nodes are new, go down or come back (issue 12, items 3 and 5).
 * Before the change a new fleet gave five "lost its data 0s ago" warnings with an age
 * that never moved and no line saying that locking was unavailable and until when, and a
 * node going down was told only by Lettuce's reconnect lines every few seconds.
 */
class FleetAvailabilityIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	private final LogCapture log = LogCapture.of(Level.INFO, FleetAvailability.class, NodeTrust.class);

	private RedlockRegistry registry;

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close();
		}
		this.log.close();
	}

	@Test
	void aNewFleetSaysOnceThatLockingIsUnavailableUntilWhenAndWhyThenThatItIsAvailable() {
		fleet.fleet().flushAll();
		this.registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(true)
			.defaultTtl(Duration.ofSeconds(2))
			.maxTtl(Duration.ofSeconds(2))
			.build()
			.start();
		assertThat(lines("Redlock cannot lock at all")).singleElement()
			.asString()
			.startsWith("WARNING")
			.contains("0 of 5 nodes usable, 3 needed")
			.containsPattern("unavailable until about \\d\\d:\\d\\d:\\d\\d")
			.contains("5 nodes are new or flushed")
			.contains("redlock.restart-guard");
		assertThat(lines("redis://")).filteredOn((line) -> line.contains("counts toward no quorum"))
			.hasSize(5)
			.allSatisfy((line) -> assertThat(line).contains("is new or was flushed").doesNotContain("lost its data"));
		await().atMost(Duration.ofSeconds(15))
			.untilAsserted(() -> assertThat(lines("Redlock can lock again")).singleElement()
				.asString()
				.startsWith("INFO")
				.contains("of 5 nodes usable, 3 needed"));
	}

	@Test
	void theAgeInANodesStateMovesOnWhileItIsGuarded() throws Exception {
		fleet.fleet().flushAll();
		this.registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(true)
			.defaultTtl(Duration.ofSeconds(5))
			.maxTtl(Duration.ofSeconds(5))
			.build()
			.start();
		String first = this.registry.checkNodes().get(0).problem();
		Thread.sleep(2100);
		String later = this.registry.checkNodes().get(0).problem();
		assertThat(first).contains("is new or was flushed");
		assertThat(secondsAgo(later)).isGreaterThanOrEqualTo(secondsAgo(first) + 2);
	}

	@Test
	void aNodeGoingDownIsToldOnceWithTheQuorumLeftAndOnceWhenItIsBack() throws Exception {
		this.registry = TestRegistries.builder(fleet).build().start();
		fleet.node(0).kill();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(lines("is down")).singleElement()
				.asString()
				.startsWith("WARNING")
				.contains(fleet.node(0).uri())
				.contains("4 of 5 nodes usable, the quorum of 3 tolerates 1 more"));
		// Lettuce keeps trying to reconnect meanwhile; the library says it once
		Thread.sleep(2500);
		assertThat(lines("is down")).hasSize(1);
		fleet.node(0).start();
		await().atMost(Duration.ofSeconds(15))
			.untilAsserted(() -> assertThat(lines("is reachable again")).singleElement()
				.asString()
				.startsWith("INFO")
				.contains(fleet.node(0).uri()));
		assertThat(lines("Redlock cannot lock at all")).isEmpty();
	}

	private List<String> lines(String containing) {
		return this.log.lines(containing);
	}

	private static long secondsAgo(String problem) {
		Matcher matcher = Pattern.compile("(\\d+)s ago").matcher(problem);
		assertThat(matcher.find()).as(problem).isTrue();
		return Long.parseLong(matcher.group(1));
	}

}
