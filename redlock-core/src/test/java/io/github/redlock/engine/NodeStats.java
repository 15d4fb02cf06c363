package io.github.redlock.engine;

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
