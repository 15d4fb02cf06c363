package io.github.redlock.engine.node;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The key layout against Redis Cluster's rule for slots, computed here as the cluster
 * specification does it (CRC16-XMODEM of the hash tag, modulo 16384): every key name of
 * one lock key is in one slot, for keys made to break hash tags, and no two lock keys
 * share a name.
 */
class KeyLayoutTests {

	private static final List<String> PREFIXES = List.of("redlock:", "", "app:locks:");

	private static final String CLOSING_BRACES = "}".repeat(KeyLayout.MAX_KEY_LENGTH);

	private static final List<String> NASTY_KEYS = List.of("order:7", "{", "}", "{}", "}{", "{{", "}}", "{{}}", "a{b",
			"a}b", "}start", "{start", "end{", "end}", "a{}b", "{a}", "{a}b", "a{b}c", "}{a}", "{}{}", "}{}{", "{}x",
			"x{}", "{ }", "ключ-鍵-🔒", "{ключ}", "🔒}", "é", "e\u0301", "\u0000", "\n", " ", "\u2028}",
			"{".repeat(KeyLayout.MAX_KEY_LENGTH), CLOSING_BRACES, "a".repeat(KeyLayout.MAX_KEY_LENGTH - 1) + "}",
			"{}".repeat(KeyLayout.MAX_KEY_LENGTH / 2), "}" + "a".repeat(KeyLayout.MAX_KEY_LENGTH - 1), "lock:x",
			"fence:{x}", "permits:x", "permits:{x}", "{x}", "x");

	@Test
	void crc16IsTheClusterSpecificationsXmodem() {
		assertThat(crc16("123456789".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0x31C3);
	}

	@Test
	void slotsAreTheOnesRedisDocumentsForItsExamples() {
		// CLUSTER KEYSLOT examples from the Redis command reference
		assertThat(slot("somekey")).isEqualTo(11058);
		assertThat(slot("foo{hash_tag}")).isEqualTo(2515);
		assertThat(slot("bar{hash_tag}")).isEqualTo(2515);
	}

	@Test
	void slotFollowsTheHashTagRule() {
		assertThat(slot("{user1000}.following")).isEqualTo(slot("user1000"));
		assertThat(slot("foo{}{bar}")).as("an empty tag: the whole key").isEqualTo(wholeKeySlot("foo{}{bar}"));
		assertThat(slot("foo{{bar}}zap")).isEqualTo(slot("{bar"));
		assertThat(slot("foo{bar}{zap}")).isEqualTo(slot("bar"));
		assertThat(slot("no tag {here")).as("no closing brace: the whole key").isEqualTo(wholeKeySlot("no tag {here"));
	}

	@Test
	void everyKeyOfALockIsInOneSlotTaggedByItsKey() {
		for (String prefix : PREFIXES) {
			KeyLayout layout = new KeyLayout(prefix);
			for (String key : keys()) {
				List<String> names = names(layout, key);
				String tag = hashTag(names.get(0));
				assertThat(tag).as("hash tag of %s", names.get(0)).isNotNull().isNotEmpty();
				for (String name : names) {
					assertThat(hashTag(name)).as("hash tag of %s", name).isEqualTo(tag);
					assertThat(slot(name)).as("slot of %s", name).isEqualTo(slot(names.get(0)));
				}
				if (key.indexOf('}') < 0) {
					assertThat(tag).as("the tag of a key without a closing brace").isEqualTo(key);
				}
			}
		}
	}

	@Test
	void channelsAreInTheSlotOfTheirLockAndUnderTheLockPrefix() {
		for (String prefix : PREFIXES) {
			KeyLayout layout = new KeyLayout(prefix);
			for (String key : keys()) {
				String lock = layout.nodeKeys(key)[0];
				assertThat(layout.lockKey(key)).isEqualTo(lock);
				assertThat(layout.permitChannel(key)).startsWith(prefix + "lock:");
				assertThat(slot(layout.permitChannel(key))).isEqualTo(slot(lock));
			}
		}
	}

	@Test
	void distinctKeysNeverShareAName() {
		for (String prefix : PREFIXES) {
			KeyLayout layout = new KeyLayout(prefix);
			Map<String, String> owners = new HashMap<>();
			for (String key : keys()) {
				List<String> names = new ArrayList<>(names(layout, key));
				names.add(layout.permitChannel(key));
				for (String name : new LinkedHashSet<>(names)) {
					String other = owners.putIfAbsent(name, key);
					assertThat(other).as("owner of %s besides %s", name, key).isNull();
				}
			}
			assertThat(owners).doesNotContainKey(layout.markerKey());
		}
	}

	@Test
	void namesOfOneKeyAreDistinctAndKeepTheirKindsPrefix() {
		KeyLayout layout = new KeyLayout("redlock:");
		String[] rw = layout.readWriteKeys("doc");
		String[] permits = layout.permitKeys("pool");
		assertThat(layout.nodeKeys("order:7")).containsExactly("redlock:lock:{order:7}", "redlock:fence:{order:7}",
				"redlock:node");
		assertThat(layout.waitersKey("order:7")).isEqualTo("redlock:waiters:{order:7}");
		assertThat(rw).containsExactly("redlock:lock:{doc}", "redlock:fence:{doc}", "redlock:readers:{doc}",
				"redlock:writer:{doc}");
		assertThat(permits).containsExactly("redlock:permits:{pool}", "redlock:permit-expiries:{pool}",
				"redlock:permit-fence:{pool}");
		assertThat(layout.permitChannel("pool")).isEqualTo("redlock:lock:permits:{pool}");
		assertThat(layout.lockKey("a}b")).matches("redlock:lock:\\{[0-9a-f]{16}\\}a\\}b");
	}

	@Test
	void channelsGiveTheirKeyBack() {
		KeyLayout layout = new KeyLayout("redlock:");
		for (String key : keys()) {
			assertThat(layout.lockChannelKey(layout.lockKey(key))).isEqualTo(key);
			assertThat(layout.permitChannelKey(layout.permitChannel(key))).isEqualTo(key);
			assertThat(layout.lockChannelKey(layout.permitChannel(key))).isNull();
			assertThat(layout.permitChannelKey(layout.lockKey(key))).isNull();
		}
		assertThat(layout.lockChannelKey("redlock:lock:{}")).isNull();
		assertThat(layout.lockChannelKey("redlock:lock:{0123456789abcdef}a}b")).isNull();
		assertThat(layout.lockChannelKey("redlock:lock:order:7")).as("0.1.0's name").isNull();
		assertThat(layout.lockChannelKey("other:lock:{order:7}")).isNull();
	}

	@Test
	void prefixWithABraceIsRefused() {
		for (String prefix : List.of("{app}:", "app{", "app}", "{}")) {
			assertThatIllegalArgumentException().isThrownBy(() -> new KeyLayout(prefix))
				.withMessageContaining("holds a brace");
		}
	}

	/**
	 * The nasty keys, every key that the layout's digest form makes of them, and random
	 * keys over an alphabet of braces (a fixed seed: the same keys every run).
	 */
	private static List<String> keys() {
		Set<String> keys = new LinkedHashSet<>(NASTY_KEYS);
		for (String key : NASTY_KEYS) {
			String tag = KeyLayout.tag(key);
			if (tag.length() <= KeyLayout.MAX_KEY_LENGTH) {
				keys.add(tag);
				keys.add(tag.substring(1, tag.indexOf('}')));
			}
		}
		char[] alphabet = { '{', '}', 'a', ':', 'é', '\u0000' };
		Random random = new Random(36);
		for (int i = 0; i < 20_000; i++) {
			char[] key = new char[1 + random.nextInt(8)];
			for (int c = 0; c < key.length; c++) {
				key[c] = alphabet[random.nextInt(alphabet.length)];
			}
			keys.add(new String(key));
		}
		keys.add(new String(Character.toChars(0x1F512)) + "}");
		return new ArrayList<>(keys);
	}

	/** Every key name that the layout gives a lock key, the node marker aside. */
	private static List<String> names(KeyLayout layout, String key) {
		List<String> names = new ArrayList<>();
		names.addAll(Arrays.asList(layout.nodeKeys(key)).subList(0, 2));
		names.add(layout.waitersKey(key));
		names.addAll(Arrays.asList(layout.readWriteKeys(key)));
		names.addAll(Arrays.asList(layout.permitKeys(key)));
		return names;
	}

	/**
	 * The hash tag Redis Cluster hashes the key by, or {@code null} for the whole key.
	 */
	private static String hashTag(String name) {
		int open = name.indexOf('{');
		if (open < 0) {
			return null;
		}
		int close = name.indexOf('}', open + 1);
		return (close > open + 1) ? name.substring(open + 1, close) : null;
	}

	static int slot(String name) {
		return slot(name.getBytes(StandardCharsets.UTF_8));
	}

	private static int wholeKeySlot(String name) {
		return crc16(name.getBytes(StandardCharsets.UTF_8)) % 16384;
	}

	/** The cluster specification's {@code HASH_SLOT}, over the key's bytes. */
	private static int slot(byte[] key) {
		int open = indexOf(key, (byte) '{', 0);
		if (open >= 0) {
			int close = indexOf(key, (byte) '}', open + 1);
			if (close > open + 1) {
				return crc16(Arrays.copyOfRange(key, open + 1, close)) & 16383;
			}
		}
		return crc16(key) & 16383;
	}

	private static int indexOf(byte[] bytes, byte wanted, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == wanted) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * CRC16-XMODEM (polynomial 0x1021, initial value 0), as the cluster specification.
	 */
	private static int crc16(byte[] bytes) {
		int crc = 0;
		for (byte b : bytes) {
			crc ^= (b & 0xFF) << 8;
			for (int bit = 0; bit < 8; bit++) {
				crc = ((crc & 0x8000) != 0) ? (crc << 1) ^ 0x1021 : crc << 1;
				crc &= 0xFFFF;
			}
		}
		return crc;
	}

}
