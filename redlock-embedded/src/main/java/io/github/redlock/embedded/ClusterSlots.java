package io.github.redlock.embedded;

import java.nio.charset.StandardCharsets;

/**
 * The hash slot of a key in a Redis Cluster, computed as the servers compute it: CRC16
 * (XMODEM) of the key, or of its hash tag, modulo {@value #COUNT}. The hash tag is the
 * part between the first <code>{</code> and the first <code>}</code> after it, when that
 * part is not empty; keys with the same tag share a slot.
 *
 * @author redlock contributors
 * @see <a href=
 * "https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/">Redis
 * cluster specification</a>
 */
public final class ClusterSlots {

	/** How many hash slots a cluster has. */
	public static final int COUNT = 16384;

	private static final int[] TABLE = new int[256];

	static {
		for (int i = 0; i < 256; i++) {
			int crc = i << 8;
			for (int bit = 0; bit < 8; bit++) {
				crc = ((crc & 0x8000) != 0) ? (crc << 1) ^ 0x1021 : crc << 1;
			}
			TABLE[i] = crc & 0xFFFF;
		}
	}

	private ClusterSlots() {
	}

	/**
	 * Returns the slot of a key, taken as UTF-8.
	 * @param key the key
	 * @return its slot, from 0 to {@value #COUNT} - 1
	 */
	public static int slot(String key) {
		return slot(key.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Returns the slot of a key.
	 * @param key the key's bytes
	 * @return its slot, from 0 to {@value #COUNT} - 1
	 */
	public static int slot(byte[] key) {
		int start = 0;
		int end = key.length;
		int open = indexOf(key, (byte) '{', 0);
		if (open >= 0) {
			int close = indexOf(key, (byte) '}', open + 1);
			if (close > open + 1) {
				start = open + 1;
				end = close;
			}
		}
		return crc16(key, start, end) & (COUNT - 1);
	}

	/**
	 * Returns the CRC16 (XMODEM: polynomial 0x1021, initial value 0) of some bytes.
	 */
	static int crc16(byte[] bytes, int start, int end) {
		int crc = 0;
		for (int i = start; i < end; i++) {
			crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xFF]) & 0xFFFF;
		}
		return crc;
	}

	private static int indexOf(byte[] bytes, byte wanted, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == wanted) {
				return i;
			}
		}
		return -1;
	}

}
