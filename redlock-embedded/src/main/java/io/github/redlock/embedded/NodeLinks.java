package io.github.redlock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Connections to plain nodes kept open for a series of commands, such as the thousands a
 * slot migration sends, which a connection per command would slow down.
 */
final class NodeLinks implements AutoCloseable {

	private static final int TIMEOUT_MILLIS = 10_000;

	private final Map<RedisNode, RespConnection> open = new HashMap<>();

	/**
	 * Runs one command on a node and returns its reply.
	 * @throws UncheckedIOException if the node cannot be reached or answers with an error
	 */
	// the commands sent here (CLUSTER, INFO, FLUSHALL, WAIT) never answer nil
	@SuppressWarnings("NullAway")
	Object call(RedisNode node, String... args) {
		RespConnection connection = this.open.get(node);
		try {
			if (connection == null) {
				connection = new RespConnection(node.port(), TIMEOUT_MILLIS);
				this.open.put(node, connection);
			}
			return connection.call(args);
		}
		catch (RespConnection.RespErrorException ex) {
			throw new UncheckedIOException(node.name() + " answered '" + ex.getMessage() + "' to " + describe(args),
					ex);
		}
		catch (IOException ex) {
			drop(node);
			throw new UncheckedIOException("Node " + node.name() + " failed " + describe(args), ex);
		}
	}

	private static String describe(String... args) {
		String command = String.join(" ", args);
		return (command.length() > 80) ? command.substring(0, 80) + "..." : command;
	}

	private void drop(RedisNode node) {
		RespConnection connection = this.open.remove(node);
		if (connection != null) {
			try {
				connection.close();
			}
			catch (IOException ex) {
				// it is broken already
			}
		}
	}

	@Override
	public void close() {
		for (RedisNode node : Map.copyOf(this.open).keySet()) {
			drop(node);
		}
	}

}
