package io.github.redlock.engine.node;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * What the ACL user of a node may not do of what locking needs. A script's permission
 * error names only the script's SHA, so when one comes, every command the scripts and
 * checks use is tried on its own, on the node marker and a probe key beside it (written
 * with a short expiry and deleted), and the message names each one refused and the ACL
 * rule that allows it.
 *
 * @author redlock contributors
 */
final class Permissions {

	private static final Script PROBE_SCRIPT = Script.of("acl-probe", "return 1");

	/** How the detail of a node that cannot run scripts begins ({@link #scripting}). */
	static final String NO_SCRIPTS = "this node cannot run Lua scripts: ";

	/** Marks a probe's command that the server does not know. */
	private static final String UNKNOWN = "?";

	private Permissions() {
	}

	/**
	 * Tries each command locking needs.
	 * @param commands the node's commands
	 * @param markerKey the node marker, under the key prefix
	 * @return a future that completes, never exceptionally, with {@code null} when all
	 * are allowed, else the detail of a NOPERM failure
	 */
	@SuppressWarnings("NullAway") // probes.get(name): the names are the map's own keys
	static CompletableFuture<@Nullable String> probe(RedisAsyncCommands<String, String> commands, String markerKey) {
		String probeKey = markerKey + ":acl-probe";
		Map<String, Function<RedisAsyncCommands<String, String>, CompletionStage<?>>> probes = new LinkedHashMap<>();
		probes.put("info", (c) -> c.info("server"));
		probes.put("time", RedisAsyncCommands::time);
		probes.put("get", (c) -> c.get(markerKey));
		probes.put("pttl", (c) -> c.pttl(markerKey));
		probes.put("set", (c) -> c.set(probeKey, "1", SetArgs.Builder.px(10_000)));
		probes.put("incr", (c) -> c.incr(probeKey));
		probes.put("pexpire", (c) -> c.pexpire(probeKey, 10_000));
		probes.put("del", (c) -> c.del(probeKey));
		probes.put("eval", (c) -> c.eval(PROBE_SCRIPT.text(), ScriptOutputType.INTEGER));
		probes.put("evalsha", (c) -> c.evalsha(PROBE_SCRIPT.sha(), ScriptOutputType.INTEGER));
		List<String> names = new ArrayList<>(probes.keySet());
		List<CompletableFuture<String>> refused = new ArrayList<>();
		for (String name : names) {
			CompletableFuture<String> outcome;
			try {
				outcome = probes.get(name)
					.apply(commands)
					.toCompletableFuture()
					.handle((ignored, ex) -> (ex == null) ? null : NodeErrors.isDenied(ex) ? denial(name, ex)
							: NodeErrors.isNoScripting(ex) ? UNKNOWN + name : null);
			}
			catch (RuntimeException ex) {
				outcome = CompletableFuture.completedFuture(NodeErrors.isDenied(ex) ? denial(name, ex) : null);
			}
			refused.add(outcome);
		}
		return CompletableFuture.allOf(refused.toArray(CompletableFuture[]::new)).handle((ignored, ex) -> {
			List<String> commandsRefused = new ArrayList<>();
			List<String> unknown = new ArrayList<>();
			boolean keysRefused = false;
			for (CompletableFuture<String> outcome : refused) {
				String denied = outcome.getNow(null);
				if (denied == null) {
					continue;
				}
				if (denied.startsWith(UNKNOWN)) {
					unknown.add(denied.substring(UNKNOWN.length()));
				}
				else if (denied.startsWith("~")) {
					keysRefused = true;
				}
				else if (!commandsRefused.contains(denied)) {
					commandsRefused.add(denied);
				}
			}
			String scripting = scripting(unknown, commandsRefused);
			String rest = describe(commandsRefused, keysRefused, markerKey);
			return (scripting == null) ? rest : (rest == null) ? scripting : scripting + "; and " + rest;
		});
	}

	/**
	 * Says that the node cannot run Lua scripts, and removes the script commands from
	 * those refused, or returns {@code null} when it can.
	 */
	private static @Nullable String scripting(List<String> unknown, List<String> refused) {
		List<String> scripts = new ArrayList<>(unknown);
		boolean denied = refused.removeIf((command) -> command.equals("eval") || command.equals("evalsha"));
		if (scripts.isEmpty() && !denied) {
			return null;
		}
		if (!scripts.isEmpty()) {
			String names = String.join(" and ",
					scripts.stream().map((command) -> command.toUpperCase(Locale.ROOT)).toList());
			return NO_SCRIPTS + names + ((scripts.size() == 1) ? " is an unknown command" : " are unknown commands")
					+ " on it (renamed away with rename-command, or a server built without Lua), and every lock"
					+ " command is a Lua script: give it EVAL and EVALSHA under their own names";
		}
		return NO_SCRIPTS + "the ACL user may not use EVAL and EVALSHA, and every lock command is a Lua script: add"
				+ " +eval +evalsha (or +@scripting) to its rules";
	}

	private static String denial(String command, Throwable ex) {
		return NodeErrors.message(ex).contains("keys") ? "~keys" : command;
	}

	private static @Nullable String describe(List<String> commands, boolean keys, String markerKey) {
		if (commands.isEmpty() && !keys) {
			return null;
		}
		String prefix = markerKey.substring(0, markerKey.length() - "node".length());
		StringBuilder detail = new StringBuilder("on ");
		List<String> rules = new ArrayList<>();
		if (!commands.isEmpty()) {
			detail.append(String.join(", ", commands.stream().map((c) -> c.toUpperCase(Locale.ROOT)).toList()));
			commands.forEach((command) -> rules.add("+" + command));
		}
		if (keys) {
			detail.append(commands.isEmpty() ? "" : " and ").append("keys ").append(prefix).append("*");
			rules.add("~" + prefix + "*");
		}
		return detail.append(": the ACL user may not use ")
			.append((commands.size() + (keys ? 1 : 0) == 1) ? "it" : "them")
			.append("; add ")
			.append(String.join(" ", rules))
			.append(" to its rules")
			.toString();
	}

}
