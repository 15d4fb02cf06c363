package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;

import io.github.redlock.Durations;
import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockInfo;
import io.github.redlock.LockKeys;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Keys and durations as messages show them (issue 12, items 6 and 7). Before the change a
 * key with a line break reached exceptions and DEBUG lines raw (a forged log line),
 * {@code LockInfo} named each node twice, and durations showed as {@code PT2M}.
 */
class MessagesIntegrationTests {

	private static final String FORGING_KEY = "order:1\r\nINFO forged line\u001b[2J";

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final RedlockRegistry registry = TestRegistries.builder(fleet).build().start();

	@AfterEach
	void close() {
		this.registry.close();
	}

	@Test
	void controlCharactersInAKeyAreEscapedWhereverTheKeyIsShown() throws Exception {
		LogCapture debug = LogCapture.of(Level.FINE, "io.github.redlock.engine.kinds.AcquisitionLoop");
		try (Lease lease = this.registry.acquire(FORGING_KEY, Duration.ofSeconds(10), Duration.ZERO)) {
			assertThat(lease.key()).isEqualTo(FORGING_KEY); // the key itself is unchanged
			LockAcquisitionException[] failure = new LockAcquisitionException[1];
			Thread other = new Thread(() -> failure[0] = catchThrowableOfType(LockAcquisitionException.class,
					() -> this.registry.acquire(FORGING_KEY, Duration.ofSeconds(10), Duration.ZERO)));
			other.start();
			other.join();
			assertThat(failure[0].getMessage()).doesNotContain("\r", "\n", "\u001b")
				.contains("order:1\\r\\nINFO forged line\\u001b[2J");
			assertThat(lease.toString()).doesNotContain("\r", "\n");
			assertThat(this.registry.inspect(FORGING_KEY).toString()).doesNotContain("\r", "\n");
		}
		finally {
			debug.close();
		}
		assertThat(debug.lines()).anyMatch((line) -> line.startsWith("FINE Acquired 'order:1\\r\\n"))
			.allSatisfy((line) -> assertThat(line).doesNotContain("\r", "\n"));
		assertThat(LockKeys.printable("plain:key")).isEqualTo("plain:key");
		assertThat(LockKeys.printable("a\tb\u2028c\u0085")).isEqualTo("a\\tb\\u2028c\\u0085");
	}

	@Test
	void lockInfoNamesEachNodeOnce() {
		fleet.node(0).kill();
		String shown = this.registry.inspect("once").toString();
		String uri = fleet.node(0).uri();
		assertThat(shown.indexOf(uri)).isNotNegative().isEqualTo(shown.lastIndexOf(uri));
		LockInfo.NodeState state = this.registry.inspect("once").nodes().get(0);
		assertThat(state.toString()).startsWith(uri + ": refused");
	}

	@Test
	void durationsAreShownAsUsersWriteThem() {
		assertThatThrownBy(() -> RedlockRegistry.builder()
			.nodes(fleet.uris())
			.defaultTtl(Duration.ofMinutes(2))
			.maxTtl(Duration.ofMinutes(1))
			.build()).hasMessageContaining("defaultTtl 2m is above maxTtl 1m").hasMessageNotContaining("PT");
		assertThatThrownBy(() -> this.registry.acquire("long", Duration.ofHours(2), Duration.ZERO))
			.hasMessageContaining("ttl 2h is above the maximum TTL 1m")
			.hasMessageNotContaining("PT");
		assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
		assertThat(Durations.format(Duration.ofSeconds(30))).isEqualTo("30s");
		assertThat(Durations.format(Duration.ofDays(1))).isEqualTo("1d");
	}

}
