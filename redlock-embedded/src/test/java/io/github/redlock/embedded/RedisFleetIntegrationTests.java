package io.github.redlock.embedded;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class RedisFleetIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@Test
	void nodesListenOnDistinctLoopbackPortsAndAnswer() {
		assertThat(fleet.uris()).hasSize(3)
			.doesNotHaveDuplicates()
			.allMatch((uri) -> uri.startsWith("redis://127.0.0.1:"));
		for (RedisNode node : fleet.fleet().nodes()) {
			assertThat(node.call("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void killedNodeRefusesConnectionsAndStartsAgainEmptyOnTheSamePort() {
		RedisNode node = fleet.node(0);
		int port = node.port();
		node.call("SET", "k", "v");
		node.kill();
		assertThat(node.isRunning()).isFalse();
		assertThat(accepts(port)).isFalse();
		node.start();
		assertThat(node.port()).isEqualTo(port);
		assertThat(node.call("GET", "k")).isNull();
	}

	@Test
	void restartKeepingDataKeepsKeysAndTheirExpiry() {
		RedisNode node = fleet.node(1);
		node.call("SET", "kept", "v", "PX", "60000");
		long pidBefore = node.pid();
		node.restart(true);
		assertThat(node.pid()).isNotEqualTo(pidBefore);
		assertThat(node.call("GET", "kept")).isEqualTo("v");
		assertThat((Long) node.call("PTTL", "kept")).isPositive();
	}

	@Test
	void restartLosingDataLosesKeys() {
		RedisNode node = fleet.node(1);
		node.call("SET", "lost", "v");
		node.restart(false);
		assertThat(node.call("GET", "lost")).isNull();
	}

	@Test
	void pausedNodeAnswersNothingUntilResumed() throws Exception {
		RedisNode node = fleet.node(2);
		node.pause();
		CompletableFuture<Object> ping = CompletableFuture.supplyAsync(() -> node.call("PING"));
		assertThatThrownBy(() -> ping.get(300, TimeUnit.MILLISECONDS))
			.isInstanceOf(java.util.concurrent.TimeoutException.class);
		node.resume();
		assertThat(ping.get(10, TimeUnit.SECONDS)).isEqualTo("PONG");
	}

	@Test
	void slowNodeDelaysCommands() {
		RedisNode node = fleet.node(2);
		node.slow(Duration.ofMillis(200));
		long start = System.nanoTime();
		for (int i = 0; i < 3; i++) {
			node.call("PING");
		}
		long slowMillis = (System.nanoTime() - start) / 1_000_000;
		node.unslow();
		// three calls each land in a 200 ms stall; a stall-free node answers in well
		// under 1 ms
		assertThat(slowMillis).isGreaterThan(100);
	}

	@Test
	void nodesDieWithTheJvmThatStartedThemEvenOnSigkill() throws Exception {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				FleetHolder.class.getName(), "2")
			.redirectErrorStream(true)
			.start();
		List<Integer> ports = new ArrayList<>();
		List<Long> pids = new ArrayList<>();
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null && !line.startsWith("fleet")) {
				// skip anything the child logs before its fleet runs
			}
			assertThat(line).as("child output").isNotNull();
			for (String part : line.substring("fleet ".length()).split(" ")) {
				String[] portAndPid = part.split(":");
				ports.add(Integer.parseInt(portAndPid[0]));
				pids.add(Long.parseLong(portAndPid[1]));
			}
			assertThat(ports).hasSize(2).allMatch(RedisFleetIntegrationTests::accepts);
			child.destroyForcibly(); // SIGKILL: no shutdown hook runs
			child.waitFor(30, TimeUnit.SECONDS);
		}
		finally {
			child.destroyForcibly();
		}
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			assertThat(ports).noneMatch(RedisFleetIntegrationTests::accepts);
			assertThat(pids).noneMatch((pid) -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
		});
	}

	private static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
