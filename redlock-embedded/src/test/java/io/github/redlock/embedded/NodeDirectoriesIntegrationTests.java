package io.github.redlock.embedded;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A JVM killed with {@code kill -9} runs no shutdown hook and used to leave its
 * {@code /tmp/redlock-node*} directories behind for good (this test failed before node
 * directories named their owner and the next JVM swept them). Other JVMs run nodes on
 * this machine at the same time, so a directory whose owner runs must survive the sweep.
 */
class NodeDirectoriesIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

	@Test
	void theNextJvmDeletesTheDirectoriesOfAJvmKilledWithSigkillAndKeepsLiveOnes() throws Exception {
		Process killed = startHolder(2);
		Process live = null;
		try {
			List<Path> killedDirectories = directories(killed);
			assertThat(killedDirectories).hasSize(2).allMatch(Files::isDirectory);
			killed.destroyForcibly(); // SIGKILL: no shutdown hook runs
			assertThat(killed.waitFor(30, TimeUnit.SECONDS)).isTrue();
			// the nodes die with their JVM, their directories do not
			assertThat(killedDirectories).allMatch(Files::isDirectory);

			live = startHolder(1);
			List<Path> liveDirectories = directories(live);
			// the new JVM swept before it created its first node
			assertThat(killedDirectories).noneMatch(Files::exists);
			assertThat(liveDirectories).hasSize(1).allMatch(Files::isDirectory);
			assertThat(fleet.node(0).directory()).isDirectory();

			// another sweep, as a third JVM would do, keeps both live owners' directories
			assertThat(NodeDirectories.sweep(NodeDirectories.temporaryDirectory()))
				.doesNotContainAnyElementsOf(List.of(liveDirectories.get(0), fleet.node(0).directory()));
			assertThat(liveDirectories).allMatch(Files::isDirectory);
			assertThat(fleet.node(0).call("PING")).isEqualTo("PONG");

			live.destroy(); // SIGTERM: the shutdown hook deletes them itself
			Process stopping = live;
			await().atMost(Duration.ofSeconds(30)).until(() -> !stopping.isAlive());
			await().atMost(Duration.ofSeconds(10)).until(() -> liveDirectories.stream().noneMatch(Files::exists));
		}
		finally {
			killed.destroyForcibly();
			if (live != null) {
				live.destroyForcibly();
			}
		}
	}

	@Test
	void aDirectoryIsSweptOnlyWhenItsOwnerIsGone(@TempDir Path parent) throws Exception {
		ProcessHandle self = ProcessHandle.current();
		long started = self.info().startInstant().map(Instant::toEpochMilli).orElseThrow();
		Path mine = Files.createDirectory(parent.resolve("redlock-node0-pid" + self.pid() + "s" + started + "-1"));
		Files.writeString(mine.resolve("redis.log"), "in use");
		// the same process id with another start time: the owner is gone, the id reused
		Path reusedPid = Files.createDirectory(parent.resolve("redlock-node1-pid" + self.pid() + "s12345-2"));
		Files.writeString(reusedPid.resolve("dump.rdb"), "stale");
		Path deadOwner = Files.createDirectory(parent.resolve("redlock-tls-pid" + deadPid() + "s" + started + "-3"));
		Path unowned = Files.createDirectory(parent.resolve("redlock-node0-4711"));
		Path binary = Files.createDirectory(parent.resolve("redlock-" + System.getProperty("user.name")));

		assertThat(NodeDirectories.sweep(parent)).containsExactlyInAnyOrder(reusedPid, deadOwner);

		assertThat(mine.resolve("redis.log")).exists();
		assertThat(unowned).isDirectory();
		assertThat(binary).isDirectory();
		assertThat(reusedPid).doesNotExist();
		assertThat(deadOwner).doesNotExist();
	}

	private static long deadPid() throws InterruptedException, IOException {
		Process process = new ProcessBuilder("true").start();
		process.waitFor(10, TimeUnit.SECONDS);
		long pid = process.pid();
		await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(pid).isEmpty());
		return pid;
	}

	private static Process startHolder(int nodes) throws IOException {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), FleetHolder.class.getName(),
				String.valueOf(nodes))
			.redirectErrorStream(true)
			.start();
	}

	private static List<Path> directories(Process holder) throws IOException {
		BufferedReader reader = new BufferedReader(
				new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
		String line;
		while ((line = reader.readLine()) != null && !line.startsWith("fleet")) {
			// skip anything the child logs before its fleet runs
		}
		assertThat(line).as("output of the fleet holder").isNotNull();
		List<Path> directories = new ArrayList<>();
		for (String part : line.substring("fleet ".length()).split(" ")) {
			directories.add(Path.of(part.split(":", 3)[2]));
		}
		// keep the pipe drained so that the child never blocks on its output
		Thread drain = new Thread(() -> {
			try {
				reader.transferTo(java.io.Writer.nullWriter());
			}
			catch (IOException ex) {
				// the child ended
			}
		}, "holder-output");
		drain.setDaemon(true);
		drain.start();
		return directories;
	}

}
