package io.github.redlock.fencing;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.RedlockRegistry;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The paused client, end to end: a holder in a JVM of its own ({@link PausedHolder}) is
 * stopped with SIGSTOP past its lease, between checking that it holds the lock and
 * writing; its watchdog, stopped with it, extends nothing. This process then takes the
 * lock and writes with its token. The holder resumes and writes with its own, as if
 * nothing had happened: a store that follows the fencing recipe ({@link FencedStore})
 * rejects the late write, and keeps the newer holder's. docs/safety-model.md points here.
 */
class PausedHolderIntegrationTests {

	static final Duration TTL = Duration.ofSeconds(2);

	private static final String KEY = "invoice:7";

	private static final String RECORD = "invoice:7:total";

	@Test
	void aStoreThatChecksTokensRejectsTheWriteOfAHolderPausedPastItsLease() throws Exception {
		try (RedisFleet fleet = RedisFleet.start(3); RedisNode storeNode = RedisNode.start("store")) {
			RedisClient storeClient = RedisClient.create(storeNode.uri());
			Process holder = startHolder(fleet, storeNode);
			try (RedlockRegistry registry = RedlockRegistry.builder()
				.nodes(fleet.uris())
				.defaultTtl(TTL)
				.maxTtl(TTL)
				.build()
				.start();
					BufferedReader said = new BufferedReader(
							new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
					Writer go = new OutputStreamWriter(holder.getOutputStream(), StandardCharsets.UTF_8)) {
				FencedStore store = new FencedStore(storeClient.connect().sync());
				String holding = nextLine(said, "HOLDING");
				long pausedToken = Long.parseLong(holding.split(" ")[1]);
				assertThat(holding).endsWith("held=true");
				signal(holder, "STOP");
				// taken once the paused holder's lease has run out on the nodes: nothing
				// extends it
				try (Lease lease = registry.acquire(KEY, TTL, Duration.ofSeconds(30))) {
					assertThat(lease.fencingToken()).isGreaterThan(pausedToken);
					assertThat(store.write(RECORD, lease.fencingToken(), "written by the new holder")).isTrue();
				}
				signal(holder, "CONT");
				go.write("write\n");
				go.flush();
				String wrote = nextLine(said, "WROTE");
				assertThat(wrote).as("the paused holder's write, and whether it holds the lock now")
					.isEqualTo("WROTE false held=false");
				assertThat(store.read(RECORD)).isEqualTo("written by the new holder");
				assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
			}
			finally {
				holder.destroyForcibly();
				storeClient.shutdown();
			}
		}
	}

	private static Process startHolder(RedisFleet fleet, RedisNode store) throws Exception {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		return new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
				System.getProperty("java.class.path"), PausedHolder.class.getName(), String.join(",", fleet.uris()),
				store.uri(), KEY, RECORD)
			.redirectErrorStream(true)
			.start();
	}

	private static String nextLine(BufferedReader said, String prefix) throws Exception {
		String line;
		while ((line = said.readLine()) != null) {
			if (line.startsWith(prefix)) {
				return line;
			}
		}
		throw new AssertionError("The holder ended without saying " + prefix);
	}

	private static void signal(Process process, String signal) throws Exception {
		Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).inheritIO().start();
		assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(kill.exitValue()).isZero();
	}

}
