package io.github.redlock.engine;

import java.util.ArrayList;
import java.util.List;

import io.github.redlock.embedded.RedisNode;

/**
 * What a node's {@code INFO} says, for tests that count the commands and bytes a node
 * served, and who subscribes to a channel there.
 */
final class NodeStats {

	private NodeStats() {
	}

	/**
	 * Returns how many times the node ran {@code command} (lower case, as
	 * {@code INFO commandstats} names it), zero if never.
	 */
	static long calls(RedisNode node, String command) {
		return calls((String) node.call("INFO", "commandstats"), command);
	}

	/**
	 * Returns how many scripts the node ran, by SHA or by text.
	 */
	static long scripts(RedisNode node) {
		String stats = (String) node.call("INFO", "commandstats");
		return calls(stats, "evalsha") + calls(stats, "eval");
	}

	/**
	 * Returns a numeric field of a section of {@code INFO}, such as {@code stats}'s
	 * {@code total_net_input_bytes}.
	 * @throws IllegalStateException if the section has no such field
	 */
	static long field(RedisNode node, String section, String name) {
		String info = (String) node.call("INFO", section);
		int at = info.indexOf(name + ":");
		if (at < 0) {
			throw new IllegalStateException("INFO " + section + " has no " + name + " on " + node);
		}
		return Long.parseLong(info.substring(at + name.length() + 1, info.indexOf('\r', at)).trim());
	}

	/**
	 * Returns how many clients of the node are subscribed to {@code channel}
	 * ({@code PUBSUB NUMSUB}).
	 */
	static long subscribers(RedisNode node, String channel) {
		List<?> reply = (List<?>) node.call("PUBSUB", "NUMSUB", channel);
		return Long.parseLong(String.valueOf(reply.get(1)));
	}

	/**
	 * Returns how many clients of all the given nodes are subscribed to {@code channel}.
	 */
	static long subscribers(List<RedisNode> nodes, String channel) {
		long total = 0;
		for (RedisNode node : nodes) {
			total += subscribers(node, channel);
		}
		return total;
	}

	/**
	 * Creates (or resets) the ACL user {@code user} with password {@code secret-<user>}
	 * and the given rules on every node, and returns the nodes' URIs as that user.
	 */
	static List<String> aclUser(List<RedisNode> nodes, String user, List<String> rules) {
		List<String> uris = new ArrayList<>();
		for (RedisNode node : nodes) {
			List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", user, "reset", "on", ">secret-" + user));
			command.addAll(rules);
			node.call(command.toArray(String[]::new));
			uris.add("redis://" + user + ":secret-" + user + "@127.0.0.1:" + node.port());
		}
		return uris;
	}

	private static long calls(String commandStats, String command) {
		String line = "cmdstat_" + command + ":";
		int at = commandStats.indexOf(line);
		if (at < 0) {
			return 0;
		}
		int start = commandStats.indexOf("calls=", at) + "calls=".length();
		return Long.parseLong(commandStats.substring(start, commandStats.indexOf(',', start)));
	}

}
