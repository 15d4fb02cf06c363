package io.github.redlock.embedded;

import java.time.Duration;
import java.util.List;

/**
 * Pairs of distinct lock keys made the way keys ended up sharing one lock in other
 * libraries (Spring Integration 7's issues 11146, 11157 and 11180): keys that differ only
 * by case, by Unicode normalisation, by a hash tag, by the separator of a prefix, past
 * the length a cache or a truncation would keep, or that collide in
 * {@link String#hashCode()}. A test of any entry point to a lock holds the one key of a
 * pair and expects the other to be free, so that every entry point is checked against the
 * same list.
 *
 * @author redlock contributors
 */
public final class DistinctKeys {

	/**
	 * Node timeout for the tests of these pairs: far above a round trip, since what they
	 * check is which locks are free, not how fast, on machines that other work may slow
	 * down.
	 */
	public static final Duration NODE_TIMEOUT = Duration.ofSeconds(1);

	/** Connect timeout for the tests of these pairs, for the same reason. */
	public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

	/** The longest lock key a registry accepts, in characters. */
	public static final int LONGEST_KEY = 1024;

	private DistinctKeys() {
	}

	/**
	 * Returns the pairs of distinct keys that a registry accepts, each at most
	 * {@value #LONGEST_KEY} characters long.
	 * @return the pairs
	 */
	public static List<Pair> pairs() {
		String longest = "k".repeat(LONGEST_KEY - 1);
		return List.of(new Pair("case", "Order:1", "order:1"),
				new Pair("Unicode normalisation, NFC and NFD", "\u00e9", "e\u0301"),
				new Pair("Unicode normalisation inside a word", "caf\u00e9", "cafe\u0301"),
				new Pair("a hash tag they share", "{a}x", "{a}y"), new Pair("a hash tag around the key", "a", "{a}"),
				new Pair("a closing brace", "x}", "x}}"), new Pair("braces only", "{}", "{}{}"),
				new Pair("the lock prefix's separator", "lock:a", "a"),
				new Pair("the semaphore channel's word", "permits:x", "x"),
				new Pair("the last of 1,024 characters", longest + "a", longest + "b"),
				new Pair("a String.hashCode collision", "Aa", "BB"),
				new Pair("a String.hashCode collision of four characters", "AaAa", "BBBB"),
				new Pair("a longer String.hashCode collision", "AaAaBB", "BBBBAa"),
				new Pair("a surrogate pair", "\uD83D\uDD12", "\uD83D\uDD13"));
	}

	/**
	 * Returns two keys of 10,000 characters that differ only in the last one: longer than
	 * a registry accepts, so each must be refused rather than locked on a shortened key
	 * the two would share.
	 * @return the pair
	 */
	public static Pair tooLong() {
		String start = "k".repeat(9_999);
		return new Pair("the last of 10,000 characters", start + "a", start + "b");
	}

	/**
	 * Returns pairs of a key prefix and a key whose concatenations meet where a separator
	 * joins them: {@code "app:" + "x:y"} and {@code "app:x" + ":y"} both read
	 * {@code "app:x:y"}. Two registries with these prefixes over the same nodes must not
	 * share a lock.
	 * @return the pairs
	 */
	public static List<PrefixedPair> prefixedPairs() {
		return List.of(new PrefixedPair("the separator after the prefix", "app:", "x:y", "app:x", ":y"),
				new PrefixedPair("the separator before the key", "app", ":x", "app:", "x"),
				new PrefixedPair("the lock prefix's word", "app:", "x", "app:lock:", "x"));
	}

	/**
	 * Two distinct keys.
	 *
	 * @param how how the keys differ
	 * @param one one key
	 * @param other the other key
	 */
	public record Pair(String how, String one, String other) {

		/**
		 * Returns how the keys differ, which names a parameterized test's case.
		 */
		@Override
		public String toString() {
			return this.how;
		}

	}

	/**
	 * Two keys, each under a key prefix of its own.
	 *
	 * @param how how the concatenations meet
	 * @param onePrefix the prefix of the first key
	 * @param one the first key
	 * @param otherPrefix the prefix of the other key
	 * @param other the other key
	 */
	public record PrefixedPair(String how, String onePrefix, String one, String otherPrefix, String other) {

		/**
		 * Returns how the concatenations meet, which names a parameterized test's case.
		 */
		@Override
		public String toString() {
			return this.how;
		}

	}

}
