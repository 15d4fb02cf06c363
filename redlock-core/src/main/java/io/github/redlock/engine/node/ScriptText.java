package io.github.redlock.engine.node;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The Lua text of the {@link Script scripts}, read once from the resource files beside
 * this class, one file per family of scripts ({@code exclusive.lua}, {@code queue.lua},
 * {@code read-write.lua}, {@code permits.lua}) and one of the fragments they share
 * ({@code common.lua}). A file is a series of sections:
 * <ul>
 * <li>{@code --- name} begins the section of that name (names are unique across the
 * files); the lines before a file's first section are its comment;</li>
 * <li>the comment lines ({@code --}) right after it are the section's contract (KEYS,
 * ARGV and reply), never sent to a node;</li>
 * <li>{@code --@include name $X=value $Y=value} stands for the text of the section of
 * that name with each placeholder {@code $X} written with its value (a value runs to the
 * next {@code $Y=} or the end of the line);</li>
 * <li>every other line is sent as it is, and the blank lines that end a section are
 * not.</li>
 * </ul>
 * <p>
 * <b>Invariants.</b> A script's text is exactly its section's lines with its includes
 * expanded: no other part of a file reaches a node, so the contract comments can change
 * without changing a script's SHA-1, and a fragment's text is written once however many
 * scripts include it. A {@code $X} placeholder no include filled fails the class's
 * initialization instead of reaching a node.
 *
 * @author redlock contributors
 */
final class ScriptText {

	private static final String[] FILES = { "common.lua", "exclusive.lua", "queue.lua", "read-write.lua", "permits.lua",
			"cluster.lua" };

	private static final String SECTION = "--- ";

	private static final String INCLUDE = "--@include ";

	private static final Pattern PARAMETERS = Pattern.compile("\\s+(?=\\$[A-Z]+=)");

	private static final Pattern UNFILLED = Pattern.compile("\\$[A-Z]");

	private static final Map<String, List<String>> SECTIONS = read();

	private ScriptText() {
	}

	/**
	 * Returns the text of the section of that name, its includes expanded.
	 */
	static String of(String name) {
		String text = expand(name, Map.of());
		if (UNFILLED.matcher(text).find()) {
			throw new IllegalStateException("Lua section '" + name + "' has a $ placeholder that no include fills");
		}
		return text;
	}

	private static String expand(String name, Map<String, String> values) {
		List<String> lines = SECTIONS.get(name);
		if (lines == null) {
			throw new IllegalStateException("No Lua section '" + name + "' in " + Arrays.toString(FILES));
		}
		StringBuilder text = new StringBuilder();
		for (String line : lines) {
			text.append(line.startsWith(INCLUDE) ? include(line.substring(INCLUDE.length())) : line + "\n");
		}
		String filled = text.toString();
		for (Map.Entry<String, String> value : values.entrySet()) {
			filled = filled.replace(value.getKey(), value.getValue());
		}
		return filled;
	}

	private static String include(String directive) {
		String[] parts = PARAMETERS.split(directive.strip());
		Map<String, String> values = new HashMap<>();
		for (int i = 1; i < parts.length; i++) {
			int equals = parts[i].indexOf('=');
			values.put(parts[i].substring(0, equals), parts[i].substring(equals + 1));
		}
		return expand(parts[0], values);
	}

	private static Map<String, List<String>> read() {
		Map<String, List<String>> sections = new HashMap<>();
		for (String file : FILES) {
			List<String> section = null;
			boolean contract = false;
			for (String line : lines(file)) {
				if (line.startsWith(SECTION)) {
					section = new ArrayList<>();
					String name = line.substring(SECTION.length()).strip();
					if (sections.put(name, section) != null) {
						throw new IllegalStateException("Lua section '" + name + "' is defined twice (" + file + ")");
					}
					contract = true;
				}
				else if (section != null && !(contract && line.startsWith("--") && !line.startsWith(INCLUDE))) {
					contract = false;
					section.add(line);
				}
			}
		}
		for (List<String> section : sections.values()) {
			while (!section.isEmpty() && section.get(section.size() - 1).isBlank()) {
				section.remove(section.size() - 1);
			}
		}
		return Map.copyOf(sections);
	}

	private static List<String> lines(String file) {
		try (InputStream in = ScriptText.class.getResourceAsStream(file)) {
			if (in == null) {
				throw new IllegalStateException(
						"Lua file " + file + " is missing beside " + ScriptText.class.getName());
			}
			try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
				return reader.lines().toList();
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Lua file " + file, ex);
		}
	}

}
