package io.github.redlock.engine.node;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.NodeFailure;
import io.github.redlock.engine.NodeStatus;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;

/**
 * Says whether one node counts toward a quorum now, for health endpoints and
 * {@code checkNodes}: connected, not silent, able to run what locking needs, and trusted.
 *
 * @author redlock contributors
 */
final class NodeHealth {

	private final NodeAddress address;

	private final NodeConnection connection;

	private final ScriptCalls calls;

	private final NodeConnection.NodeParts parts;

	NodeHealth(NodeAddress address, NodeConnection connection, ScriptCalls calls, NodeConnection.NodeParts parts) {
		this.address = address;
		this.connection = connection;
		this.calls = calls;
		this.parts = parts;
	}

	/**
	 * Says whether this node counts toward a quorum now, running a script that reads the
	 * node marker: what locking needs of the ACL user.
	 * @return a future that completes, never exceptionally, within the node timeout
	 */
	CompletableFuture<NodeStatus> check() {
		StatefulRedisConnection<String, String> current = this.connection.current();
		if (this.connection.isClosed()) {
			return CompletableFuture.completedFuture(
					status(false, null, "not connected: the registry is stopped; it connects when started"));
		}
		if (current == null) {
			this.connection.connectIfDue();
			NodeFailure failure = this.connection.notConnected();
			return CompletableFuture.completedFuture(status(false, null, (failure.kind() == NodeFailure.Kind.REFUSED)
					? "not connected: " + failure.detail() : failure.describe()));
		}
		NodeFailure silent = this.parts.silence().failure();
		if (silent != null) {
			return CompletableFuture.completedFuture(status(false, null, silent.describe()));
		}
		NodeTrust trust = this.parts.trust();
		CompletableFuture<NodeStatus> result = new CompletableFuture<>();
		long start = System.nanoTime();
		try {
			// what locking needs: a script, by SHA, reading keys under the prefix
			String marker = trust.markerKey();
			this.calls.<List<Object>>run(current,
					new ScriptArgs(Script.INSPECT, new String[] { marker, marker }, new String[0]),
					ScriptOutputType.MULTI, (reply, ex) -> {
						if (ex != null) {
							result.complete(status(false, null, this.calls.failure(Script.INSPECT, ex).describe()));
							return;
						}
						Duration latency = Duration.ofNanos(System.nanoTime() - start);
						NodeFailure untrusted = trust.untrusted(this.parts.generations().current());
						result.complete((untrusted != null) ? status(false, latency, untrusted.describe())
								: status(true, latency, null));
					});
		}
		catch (RuntimeException ex) {
			result.complete(status(false, null, this.parts.errors().classify(ex).describe()));
		}
		return result;
	}

	private NodeStatus status(boolean usable, @Nullable Duration latency, @Nullable String problem) {
		return new NodeStatus(this.address.toString(), usable, latency, problem, this.address.tlsWarning());
	}

}
