package io.github.redlock.embedded;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;

import io.github.redlock.embedded.NodeProxy.Direction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The network faults of {@link NodeProxy} and {@link FleetProxy}, against real nodes.
 * Waits that prove nothing arrived are short (a test cannot wait for never); waits for
 * what must arrive are long.
 */
class NodeProxyIntegrationTests {

	private static final int QUIET_MILLIS = 300;

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private FleetProxy a;

	private FleetProxy b;

	@AfterEach
	void closeProxies() {
		if (this.a != null) {
			this.a.close();
		}
		if (this.b != null) {
			this.b.close();
		}
	}

	@Test
	void forwardsCommandsAndRepliesBothWays() throws IOException {
		this.a = fleet.fleet().proxy("a");
		assertThat(this.a.uris()).hasSize(3).doesNotContainAnyElementsOf(fleet.uris());
		try (RespConnection connection = new RespConnection(this.a.node(0).port(), 10_000)) {
			assertThat(connection.call("SET", "through", "proxy")).isEqualTo("OK");
			assertThat(connection.call("PING")).isEqualTo("PONG");
		}
		assertThat(fleet.node(0).call("GET", "through")).isEqualTo("proxy");
	}

	@Test
	void aCutHoldsCommandsAndRepliesUntilItHealsThenDeliversThemInOrder() throws IOException {
		this.a = fleet.fleet().proxy("a");
		NodeProxy link = this.a.node(0);
		try (RespConnection connection = new RespConnection(link.port(), QUIET_MILLIS)) {
			assertThat(connection.call("PING")).isEqualTo("PONG");
			link.cut();
			connection.send("INCR", "cut-counter");
			connection.send("INCR", "cut-counter");
			assertThatThrownBy(connection::read).isInstanceOf(SocketTimeoutException.class);
			// the node never saw the commands
			assertThat(fleet.node(0).call("GET", "cut-counter")).isNull();
			link.heal();
		}
		try (RespConnection connection = new RespConnection(link.port(), 10_000)) {
			// a fresh connection: the held commands arrived in order once healed
			await().untilAsserted(() -> assertThat(fleet.node(0).call("GET", "cut-counter")).isEqualTo("2"));
			assertThat(connection.call("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void aOneWayCutLetsCommandsRunButHoldsTheirReplies() throws IOException {
		this.a = fleet.fleet().proxy("a");
		NodeProxy link = this.a.node(1);
		try (RespConnection connection = new RespConnection(link.port(), QUIET_MILLIS)) {
			link.cut(Direction.TO_CLIENT);
			assertThat(link.isCut(Direction.TO_CLIENT)).isTrue();
			assertThat(link.isCut(Direction.TO_NODE)).isFalse();
			connection.send("INCR", "one-way");
			await().untilAsserted(() -> assertThat(fleet.node(1).call("GET", "one-way")).isEqualTo("1"));
			assertThatThrownBy(connection::read).isInstanceOf(SocketTimeoutException.class);
			link.heal();
			assertThat(connection.read()).isEqualTo(1L);
		}
	}

	@Test
	void aDelayHoldsEachChunkAtLeastThatLong() throws IOException {
		this.a = fleet.fleet().proxy("a");
		NodeProxy link = this.a.node(2);
		try (RespConnection connection = new RespConnection(link.port(), 10_000)) {
			assertThat(connection.call("PING")).isEqualTo("PONG");
			link.delay(Direction.TO_NODE, Duration.ofMillis(400));
			long start = System.nanoTime();
			assertThat(connection.call("PING")).isEqualTo("PONG");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
			link.heal();
			assertThat(connection.call("PING")).isEqualTo("PONG");
		}
		assertThatThrownBy(() -> link.delay(Direction.TO_CLIENT, Duration.ofMillis(-1)))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("delay");
	}

	@Test
	void aPartitionCutsOneClientOffWhileAnotherStillReachesTheNode() throws IOException {
		this.a = fleet.fleet().proxy("a");
		this.b = fleet.fleet().proxy("b");
		// a reaches node 0 only; b, through proxies of its own, still reaches every node
		this.a.partition(1, 2);
		try (RespConnection aToNode1 = new RespConnection(this.a.node(1).port(), QUIET_MILLIS);
				RespConnection aToNode0 = new RespConnection(this.a.node(0).port(), 10_000);
				RespConnection bToNode1 = new RespConnection(this.b.node(1).port(), 10_000)) {
			aToNode1.send("PING");
			assertThatThrownBy(aToNode1::read).isInstanceOf(SocketTimeoutException.class);
			assertThat(aToNode0.call("PING")).isEqualTo("PONG");
			assertThat(bToNode1.call("PING")).isEqualTo("PONG");
			// healing by a new partition: a now reaches 1 and 2 and not 0
			this.a.partition(0);
			assertThat(aToNode1.read()).isEqualTo("PONG");
			assertThat(this.a.node(0).isCut(Direction.TO_NODE)).isTrue();
		}
	}

	@Test
	void killingTheNodeClosesConnectionsThroughTheProxyAndANewOneWorksOnceItIsBack() throws IOException {
		this.a = fleet.fleet().proxy("a");
		NodeProxy link = this.a.node(0);
		try (RespConnection connection = new RespConnection(link.port(), 10_000)) {
			assertThat(connection.call("PING")).isEqualTo("PONG");
			await().until(() -> link.connections() == 1);
			fleet.node(0).kill();
			assertThatThrownBy(() -> connection.call("PING")).isInstanceOf(IOException.class);
		}
		await().until(() -> link.connections() == 0);
		fleet.node(0).start();
		try (RespConnection connection = new RespConnection(link.port(), 10_000)) {
			assertThat(connection.call("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void droppedConnectionsCloseAndAClosedProxyRefusesNewOnes() throws IOException {
		this.a = fleet.fleet().proxy("a");
		NodeProxy link = this.a.node(1);
		int port = link.port();
		try (RespConnection connection = new RespConnection(port, 10_000)) {
			assertThat(connection.call("PING")).isEqualTo("PONG");
			link.dropConnections();
			assertThatThrownBy(() -> connection.call("PING")).isInstanceOf(IOException.class);
		}
		link.close();
		// the listening socket closes as the accepting thread lets go of it
		await().untilAsserted(() -> assertThatThrownBy(() -> {
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
			}
		}).isInstanceOf(IOException.class));
	}

}
