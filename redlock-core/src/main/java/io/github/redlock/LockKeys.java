package io.github.redlock;

import org.jspecify.annotations.Nullable;

/**
 * How a lock key is shown in logs, exceptions and endpoints: control characters (carriage
 * returns, line feeds, tabs, escape sequences, Unicode line separators) are escaped, so
 * that a key chosen by an end user can neither forge a log line nor hide in one. The key
 * itself is used unchanged.
 *
 * @author redlock contributors
 */
public final class LockKeys {

	private LockKeys() {
	}

	/**
	 * Returns the key with its control characters escaped as {@code \n}, {@code \r},
	 * {@code \t} or {@code \\uXXXX}; the key itself when it has none.
	 * @param key the key, or {@code null}
	 * @return the key as it may be shown
	 */
	public static String printable(@Nullable String key) {
		if (key == null) {
			return "null";
		}
		int first = 0;
		while (first < key.length() && !isControl(key.charAt(first))) {
			first++;
		}
		if (first == key.length()) {
			return key;
		}
		StringBuilder shown = new StringBuilder(key.length() + 8).append(key, 0, first);
		for (int i = first; i < key.length(); i++) {
			char c = key.charAt(i);
			if (!isControl(c)) {
				shown.append(c);
			}
			else if (c == '\n') {
				shown.append("\\n");
			}
			else if (c == '\r') {
				shown.append("\\r");
			}
			else if (c == '\t') {
				shown.append("\\t");
			}
			else {
				shown.append(String.format("\\u%04x", (int) c));
			}
		}
		return shown.toString();
	}

	private static boolean isControl(char c) {
		return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
	}

}
