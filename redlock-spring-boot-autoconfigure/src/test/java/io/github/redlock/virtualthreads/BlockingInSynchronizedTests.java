package io.github.redlock.virtualthreads;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;

import io.github.redlock.LockRegistry;
import io.github.redlock.aop.CurrentLease;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No blocking call sits inside {@code synchronized} in the project's classes
 * (redlock-core and this module): JDK 21, the release most applications run virtual
 * threads on, pins a carrier thread for the whole of such a call (JDK 24+ no longer does,
 * so a JFR recording on JDK 25 cannot show it). Issue 25, item 14.
 */
@Tag("virtual-threads")
class BlockingInSynchronizedTests {

	@Test
	void noProjectClassBlocksWhileHoldingAMonitor() throws Exception {
		BlockingInSynchronizedChecker checker = new BlockingInSynchronizedChecker(
				List.of(location(LockRegistry.class), location(CurrentLease.class)));
		assertThat(checker.classesRead()).as("classes read").isGreaterThan(50);
		List<String> findings = checker.findings();
		findings.forEach((finding) -> System.out.println("blocking under a monitor: " + finding));
		assertThat(findings).isEmpty();
	}

	@Test
	void theCheckerFindsABrokenLockPath() throws Exception {
		// the checker is worth something only if it can fail: on the fixture it must
		// find both blocking calls, and not the one made after the monitor is released
		BlockingInSynchronizedChecker checker = new BlockingInSynchronizedChecker(
				List.of(location(PinningFixture.class)));
		List<String> findings = checker.findings()
			.stream()
			.filter((finding) -> finding.startsWith(PinningFixture.class.getName()))
			.toList();
		assertThat(findings).hasSize(2)
			.anySatisfy((finding) -> assertThat(finding).contains("sleepsHoldingTheMonitor (synchronized method)",
					"java.lang.Thread.sleep"))
			.anySatisfy((finding) -> assertThat(finding).contains("waitsForAReplyThroughAHelper (synchronized block)",
					"awaitReply", "java.util.concurrent.CompletableFuture.get"));
	}

	private static Path location(Class<?> type) throws URISyntaxException {
		return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
	}

}
