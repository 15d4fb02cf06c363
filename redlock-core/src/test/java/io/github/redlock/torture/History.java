package io.github.redlock.torture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.github.redlock.embedded.RedisNode;

/**
 * What a torture run recorded, as events in the order they were recorded: each client's
 * {@code invoke} (it began asking for a key), {@code ok} (it holds it: the token and when
 * the lease's validity ends), {@code fail} (it was refused), {@code release} or
 * {@code lost} (the section ended, before or after its lease's validity did; a section
 * with an {@code ok} and no end is taken to have held until its validity ended), its
 * fenced {@code write}s, what a worker threw ({@code error}) and when its JVM stood still
 * ({@code stall}); then the store's own {@code store} log of each key in arrival order.
 * Every client event has the client's monotonic time ({@code nanos}, from
 * {@link System#nanoTime()}, which every JVM on one machine reads from the same clock:
 * the checker compares only these) and its wall clock ({@code wall}, for reading a
 * history beside logs). A history is written to a file of JSON lines, one event a line,
 * and read back from it, so that a run is judged from its file and a file can be judged
 * again ({@code TortureHistoryRecheckTests}). The checker reads it through the line views
 * ({@link #sections()}, {@link #writes()}, {@link #storeLogs()}, {@link #errors()},
 * {@link #stalls()}).
 *
 * @param events every event, in the order recorded
 */
record History(List<Event> events) {

	/** The store's list the clients push their events to, as JSON. */
	static final String EVENTS = "history";

	History {
		events = List.copyOf(events);
	}

	/**
	 * Reads what the clients recorded in the store node, and the store's log of every key
	 * they took.
	 */
	static History read(RedisNode store) {
		List<Event> events = new ArrayList<>();
		lines(store, EVENTS).forEach((line) -> events.add(Event.parse(line)));
		events.stream()
			.filter((event) -> event.type().equals("ok"))
			.map((event) -> event.get("key"))
			.distinct()
			.sorted()
			.forEach((key) -> {
				for (String entry : lines(store, TortureStore.logKey(key))) {
					events.add(storeEntry(key, entry));
				}
			});
		return new History(events);
	}

	/**
	 * Reads a history from its file.
	 */
	static History read(Path file) throws IOException {
		List<Event> events = new ArrayList<>();
		for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
			if (!line.isBlank()) {
				events.add(Event.parse(line));
			}
		}
		return new History(events);
	}

	/**
	 * Builds a history from records in the checker's line formats (those of
	 * {@link #sections()}, {@link #writes()}, {@link #storeLogs()}, {@link #errors()} and
	 * {@link #stalls()}), as tests write them by hand; it has no wall clock.
	 */
	static History of(List<String> sections, List<String> writes, Map<String, List<String>> storeLogs,
			List<String> errors, List<String> stalls) {
		List<Event> events = new ArrayList<>();
		for (String line : sections) {
			String[] f = line.split(" ");
			Event section = Event.of("").with("key", f[0]).with("client", f[1]).with("section", f[6]);
			String mode = (f.length > 8) ? f[8] : "X";
			events.add(section.as("invoke").with("mode", mode).with("nanos", f[7]));
			events.add(section.as("ok")
				.with("mode", mode)
				.with("token", f[2])
				.with("nanos", f[3])
				.with("validUntil", f[5]));
			boolean lost = Long.parseLong(f[4]) > Long.parseLong(f[5]);
			events.add(section.as(lost ? "lost" : "release")
				.with("token", f[2])
				.with("nanos", f[4])
				.with("validUntil", f[5]));
		}
		for (String line : writes) {
			String[] f = line.split(" ");
			events.add(Event.of("write")
				.with("op", f[0])
				.with("key", f[1])
				.with("token", f[2])
				.with("nanos", f[3])
				.with("late", f[4])
				.with("accepted", f[5]));
		}
		for (String line : errors) {
			String[] f = line.split(" ", 3);
			int colon = f[2].indexOf(": ");
			events.add(Event.of("error")
				.with("client", f[0])
				.with("key", f[1])
				.with("thread", f[2].substring(0, colon))
				.with("message", f[2].substring(colon + 2)));
		}
		for (String line : stalls) {
			String[] f = line.split(" ");
			events.add(Event.of("stall").with("client", f[0]).with("from", f[1]).with("to", f[2]));
		}
		storeLogs.forEach((key, log) -> log.forEach((entry) -> events.add(storeEntry(key, entry))));
		return new History(events);
	}

	/**
	 * Returns one entry of a key's store log ({@code opId token accepted section}) as an
	 * event.
	 */
	private static Event storeEntry(String key, String entry) {
		String[] f = entry.split(" ");
		return Event.of("store")
			.with("key", key)
			.with("op", f[0])
			.with("token", f[1])
			.with("accepted", f[2])
			.with("section", f[3]);
	}

	/**
	 * Writes this history to a file, one event a line.
	 */
	void write(Path file) throws IOException {
		Path parent = file.toAbsolutePath().getParent();
		if (parent != null) {
			Files.createDirectories(parent);
		}
		Files.write(file, this.events.stream().map(Event::toJson).toList(), StandardCharsets.UTF_8);
	}

	/**
	 * Returns every critical section that held:
	 * {@code key client token start end safeEnd section askedAt mode}, where mode is
	 * {@code X} (exclusive lock), {@code R} (read lock), {@code W} (write lock) or
	 * {@code P} (a permit of the semaphore), {@code askedAt} is when the client began
	 * asking for the lock, {@code start} when it held it, {@code end} when the section
	 * ended ({@link Long#MAX_VALUE} if it never said) and {@code safeEnd} when the
	 * lease's validity ended, all monotonic.
	 */
	List<String> sections() {
		Map<String, Event> invoked = new HashMap<>();
		Map<String, Event> ended = new HashMap<>();
		for (Event event : this.events) {
			switch (event.type()) {
				case "invoke" -> invoked.put(event.get("section"), event);
				case "release", "lost" -> ended.put(event.get("section"), event);
				default -> {
				}
			}
		}
		List<String> sections = new ArrayList<>();
		for (Event ok : ofType("ok")) {
			String id = ok.get("section");
			Event invoke = invoked.get(id);
			Event end = ended.get(id);
			String askedAt = (invoke != null) ? invoke.get("nanos") : ok.get("nanos");
			sections.add(ok.get("key") + " " + ok.get("client") + " " + ok.get("token") + " " + ok.get("nanos") + " "
					+ ((end != null) ? end.get("nanos") : Long.MAX_VALUE) + " "
					+ ((end != null) ? end : ok).get("validUntil") + " " + id + " " + askedAt + " " + ok.get("mode"));
		}
		return sections;
	}

	/**
	 * Returns every fenced write as its client saw it:
	 * {@code opId key token send late accepted}.
	 */
	List<String> writes() {
		return ofType("write").stream()
			.map((write) -> write.get("op") + " " + write.get("key") + " " + write.get("token") + " "
					+ write.get("nanos") + " " + write.get("late") + " " + write.get("accepted"))
			.toList();
	}

	/**
	 * Returns each key's store log in arrival order: {@code opId token accepted section}.
	 */
	Map<String, List<String>> storeLogs() {
		Map<String, List<String>> logs = new LinkedHashMap<>();
		for (Event entry : ofType("store")) {
			logs.computeIfAbsent(entry.get("key"), (key) -> new ArrayList<>())
				.add(entry.get("op") + " " + entry.get("token") + " " + entry.get("accepted") + " "
						+ entry.get("section"));
		}
		return logs;
	}

	/**
	 * Returns what workers threw that they should not have: {@code client key thread:
	 * what}.
	 */
	List<String> errors() {
		return ofType("error").stream()
			.map((error) -> error.get("client") + " " + error.get("key") + " " + error.get("thread") + ": "
					+ error.get("message"))
			.toList();
	}

	/**
	 * Returns when a client JVM stood still: {@code client from to}, monotonic.
	 */
	List<String> stalls() {
		return ofType("stall").stream()
			.map((stall) -> stall.get("client") + " " + stall.get("from") + " " + stall.get("to"))
			.toList();
	}

	/**
	 * Returns what this history holds of one key, and every stall (a stall is a client's,
	 * not a key's).
	 */
	History forKey(String key) {
		return new History(this.events.stream()
			.filter((event) -> event.type().equals("stall") || key.equals(event.get("key")))
			.toList());
	}

	/**
	 * Returns how many events of each type this history holds, for a run's summary.
	 */
	String tally() {
		Map<String, Long> counts = new LinkedHashMap<>();
		for (String type : List.of("invoke", "ok", "fail", "release", "lost", "write", "store", "error", "stall")) {
			counts.put(type, 0L);
		}
		this.events.forEach((event) -> counts.merge(event.type(), 1L, Long::sum));
		return this.events.size() + " events: "
				+ counts.entrySet()
					.stream()
					.map((count) -> count.getKey() + " " + count.getValue())
					.collect(java.util.stream.Collectors.joining(", "));
	}

	private List<Event> ofType(String type) {
		Predicate<Event> ofType = (event) -> event.type().equals(type);
		return this.events.stream().filter(ofType).toList();
	}

	private static List<String> lines(RedisNode store, String list) {
		return ((List<?>) store.call("LRANGE", list, "0", "-1")).stream().map(String.class::cast).toList();
	}

	/**
	 * One event: named fields with text values, its type among them; written as a flat
	 * JSON object whose values that are whole numbers are numbers.
	 *
	 * @param fields the fields, in the order written
	 */
	record Event(Map<String, String> fields) {

		Event {
			fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
		}

		static Event of(String type) {
			return new Event(Map.of("type", type));
		}

		String type() {
			return this.fields.get("type");
		}

		String get(String name) {
			return this.fields.get(name);
		}

		Event with(String name, Object value) {
			Map<String, String> fields = new LinkedHashMap<>(this.fields);
			fields.put(name, String.valueOf(value));
			return new Event(fields);
		}

		/**
		 * Returns this event stamped with a client's two clocks: its monotonic time
		 * (taken by the caller, at the moment the event is about) and its wall clock now.
		 */
		Event at(long nanos) {
			return with("nanos", nanos).with("wall", Instant.now());
		}

		/**
		 * Returns this event's fields under another type.
		 */
		Event as(String type) {
			return with("type", type);
		}

		String toJson() {
			StringBuilder json = new StringBuilder("{");
			this.fields.forEach((name, value) -> {
				if (json.length() > 1) {
					json.append(',');
				}
				quote(json, name).append(':');
				if (value.matches("-?(0|[1-9][0-9]{0,17})")) {
					json.append(value);
				}
				else {
					quote(json, value);
				}
			});
			return json.append('}').toString();
		}

		private static StringBuilder quote(StringBuilder json, String text) {
			json.append('"');
			for (char c : text.toCharArray()) {
				switch (c) {
					case '"' -> json.append("\\\"");
					case '\\' -> json.append("\\\\");
					case '\n' -> json.append("\\n");
					case '\r' -> json.append("\\r");
					case '\t' -> json.append("\\t");
					default -> {
						if (c < 0x20) {
							json.append(String.format("\\u%04x", (int) c));
						}
						else {
							json.append(c);
						}
					}
				}
			}
			return json.append('"');
		}

		/**
		 * Reads a line written by {@link #toJson()}: a flat object of strings and whole
		 * numbers.
		 */
		static Event parse(String json) {
			Map<String, String> fields = new LinkedHashMap<>();
			int[] at = { skipSpaces(json, 0) };
			expect(json, at, '{');
			at[0] = skipSpaces(json, at[0]);
			if (json.charAt(at[0]) == '}') {
				return new Event(fields);
			}
			while (true) {
				at[0] = skipSpaces(json, at[0]);
				String name = string(json, at);
				at[0] = skipSpaces(json, at[0]);
				expect(json, at, ':');
				at[0] = skipSpaces(json, at[0]);
				String value;
				if (json.charAt(at[0]) == '"') {
					value = string(json, at);
				}
				else {
					int start = at[0];
					while (at[0] < json.length() && "-0123456789".indexOf(json.charAt(at[0])) >= 0) {
						at[0]++;
					}
					value = json.substring(start, at[0]);
					if (value.isEmpty()) {
						throw new IllegalArgumentException("Not a string or a whole number at " + start + ": " + json);
					}
				}
				fields.put(name, value);
				at[0] = skipSpaces(json, at[0]);
				char next = json.charAt(at[0]++);
				if (next == '}') {
					return new Event(fields);
				}
				if (next != ',') {
					throw new IllegalArgumentException("Expected ',' or '}' at " + (at[0] - 1) + ": " + json);
				}
			}
		}

		private static String string(String json, int[] at) {
			expect(json, at, '"');
			StringBuilder text = new StringBuilder();
			while (true) {
				char c = json.charAt(at[0]++);
				if (c == '"') {
					return text.toString();
				}
				if (c != '\\') {
					text.append(c);
					continue;
				}
				char escaped = json.charAt(at[0]++);
				switch (escaped) {
					case 'n' -> text.append('\n');
					case 'r' -> text.append('\r');
					case 't' -> text.append('\t');
					case 'b' -> text.append('\b');
					case 'f' -> text.append('\f');
					case 'u' -> {
						text.append((char) Integer.parseInt(json.substring(at[0], at[0] + 4), 16));
						at[0] += 4;
					}
					default -> text.append(escaped);
				}
			}
		}

		private static void expect(String json, int[] at, char expected) {
			if (at[0] >= json.length() || json.charAt(at[0]) != expected) {
				throw new IllegalArgumentException("Expected '" + expected + "' at " + at[0] + ": " + json);
			}
			at[0]++;
		}

		private static int skipSpaces(String json, int at) {
			while (at < json.length() && Character.isWhitespace(json.charAt(at))) {
				at++;
			}
			return at;
		}

	}

}
