package io.github.redlock.engine.node;

import java.time.Duration;
import java.util.function.Consumer;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;

/**
 * How Lettuce treats a node's connections: reconnected after a drop, commands refused
 * while disconnected rather than queued, never replayed, timed out by
 * {@link CommandTimeouts}, and a bounded command stack.
 *
 * @author redlock contributors
 */
final class LockClientOptions {

	/**
	 * Most commands one connection keeps sent and unanswered (Lettuce's
	 * {@code requestQueueSize}); more are refused at once. A backstop:
	 * {@link NodeSilence} stops sending to a node that does not answer long before, while
	 * a healthy node answers in a fraction of the node timeout. Large enough for bursts a
	 * healthy node takes: ten thousand leases extended at once put as many commands in
	 * flight to every node.
	 */
	static final int REQUEST_QUEUE_SIZE = 50_000;

	private LockClientOptions() {
	}

	/**
	 * Returns the options of one node's client, after the application's
	 * {@code customizer}.
	 */
	static ClientOptions of(Duration nodeTimeout, Duration deletionTimeout, Duration connectTimeout,
			SilentNodes silentNodes, Consumer<ClientOptions.Builder> customizer) {
		ClientOptions.Builder options = ClientOptions.builder()
			.autoReconnect(true)
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.timeoutOptions(TimeoutOptions.builder()
				.timeoutSource(new CommandTimeouts(nodeTimeout, NodeSilence.probeTimeout(nodeTimeout, silentNodes),
						deletionTimeout))
				.build())
			// never replay a command after a reconnect: the server may have restarted and
			// lost the locks, and a late answer must not count toward a quorum
			.replayFilter((command) -> true)
			// what a node that stopped answering can hold (NodeSilence stops it sooner)
			.requestQueueSize(REQUEST_QUEUE_SIZE)
			.socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).keepAlive(true).build());
		customizer.accept(options);
		return options.build();
	}

}
