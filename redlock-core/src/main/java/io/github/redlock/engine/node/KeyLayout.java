package io.github.redlock.engine.node;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import io.lettuce.core.cluster.SlotHash;
import org.jspecify.annotations.Nullable;

/**
 * Where a lock lives on the nodes, and which keys are acceptable. For a key {@code k} and
 * the prefix {@code p}, each node holds:
 * <ul>
 * <li>{@code p + "lock:" + tag(k)}, the lock value, with the lease's TTL;</li>
 * <li>{@code p + "fence:" + tag(k)}, the fencing counter, kept for the retention;</li>
 * <li>{@code p + "waiters:" + tag(k)}, the queue of processes waiting for the key;</li>
 * <li>{@code p + "node"}, one marker per node, which the restart guard reads.</li>
 * </ul>
 * Read-write locks and semaphores add keys of their own, named the same way
 * ({@link #readWriteKeys}, {@link #permitKeys}).
 * <p>
 * <b>The tag.</b> Redis Cluster hashes a key by its hash tag, the text between its first
 * opening brace and the first closing brace after that when it is not empty, else by the
 * whole key. {@code tag(k)} is {@code "{" + k + "}"} when {@code k} holds no closing
 * brace: the tag is then {@code k} itself, whatever opening braces it holds, and never
 * empty since keys are not. A closing brace in the key would end such a tag early, so
 * such a key gets {@code "{" + digest + "}" + k} instead, where the digest is the first
 * 16 hexadecimal digits of the SHA-256 of its UTF-8 bytes: a tag of fixed length, without
 * braces, followed by the key itself. The two forms cannot meet (the first holds one
 * closing brace, the second at least two), and each gives its key back, so distinct keys
 * never share a name; they may share a slot, as any two keys may.
 * <p>
 * <b>The prefix</b> must hold no brace: an opening brace in it would open the tag of
 * every key, and put every lock in the prefix's slot. {@code RegistryOptions} refuses it.
 * <p>
 * <b>The node marker</b> is one key per single node ({@code p + "node"}), passed to the
 * lock scripts beside the lock's keys (as {@code KEYS[3]} or {@code KEYS[4]}) so that a
 * script compares it in the same atomic step. On a Redis Cluster a script's keys must all
 * be in one slot, so a cluster member keeps one marker per slot, {@code p + "node:{" + t
 * + "}"} where {@code t} is the slot's own short tag ({@link SlotTags}), and beside it
 * the slot's owner stamp {@code p + "owner:{" + t + "}"} ({@link OwnerChange}): the
 * acquire scripts are given the marker of the lock key's slot. Resharding carries both
 * with the slot's keys.
 * <p>
 * <b>Release hint channels</b> are not keys, so no slot constrains them, but they carry
 * the same tag, and stay under {@code p + "lock:"} so that one ACL channel pattern
 * ({@code &<prefix>lock:*}) allows them all: a lock's channel is its lock key's name, on
 * which the release scripts publish ({@link Script#RELEASE}), and a semaphore's is
 * {@code p + "lock:permits:" + tag(k)} ({@link #permitChannel}), which no lock's channel
 * can be (those go on with an opening brace).
 * <p>
 * <b>Invariants.</b> Every key name made for one lock key holds the same hash tag, so all
 * of them hash to one cluster slot; distinct lock keys never get the same name; a name
 * and its channel give their lock key back ({@link #lockChannelKey},
 * {@link #permitChannelKey}).
 *
 * @author redlock contributors
 */
public final class KeyLayout {

	/** The longest lock key accepted, in characters. */
	public static final int MAX_KEY_LENGTH = 1024;

	/** Hexadecimal digits of the digest tag given to keys that hold a closing brace. */
	static final int DIGEST_DIGITS = 16;

	private static final String PERMIT_CHANNEL = "permits:";

	private final String prefix;

	private final String lockPrefix;

	private final String markerKey;

	/** Whether the members are clusters, with a marker per slot. */
	private final boolean perSlotMarkers;

	/**
	 * Creates the layout of keys under a prefix, for single nodes.
	 * @param keyPrefix the prefix, possibly empty
	 * @throws IllegalArgumentException if the prefix holds a brace
	 */
	public KeyLayout(String keyPrefix) {
		this(keyPrefix, false);
	}

	/**
	 * Creates the layout of keys under a prefix.
	 * @param keyPrefix the prefix, possibly empty
	 * @param perSlotMarkers whether the members are clusters, which keep a marker per
	 * slot
	 * @throws IllegalArgumentException if the prefix holds a brace
	 */
	public KeyLayout(String keyPrefix, boolean perSlotMarkers) {
		if (hasBrace(keyPrefix)) {
			throw new IllegalArgumentException("Key prefix '" + keyPrefix + "' holds a brace");
		}
		this.prefix = keyPrefix;
		this.lockPrefix = keyPrefix + "lock:";
		this.markerKey = keyPrefix + "node";
		this.perSlotMarkers = perSlotMarkers;
	}

	/**
	 * Returns whether a key prefix holds a brace, which would make the hash tag of every
	 * key on the nodes.
	 */
	public static boolean hasBrace(String keyPrefix) {
		return keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0;
	}

	/**
	 * Returns the name of the key's lock on the nodes, also the channel of its release
	 * hints.
	 */
	public String lockKey(String key) {
		return this.lockPrefix + tag(key);
	}

	/**
	 * Returns the keys every lock script takes: the lock, its fencing counter, and the
	 * node marker ({@link #markerKeyOf}).
	 */
	public String[] nodeKeys(String key) {
		String tag = tag(key);
		return new String[] { this.lockPrefix + tag, this.prefix + "fence:" + tag, markerKeyOf(key) };
	}

	/**
	 * Returns the cluster slot of every key of {@code key}'s state, as the members'
	 * {@link QuorumMember#marker(int)} takes it; 0 for single nodes, which have no slots.
	 */
	public int slot(String key) {
		return this.perSlotMarkers ? SlotHash.getSlot(tag(key)) : 0;
	}

	/**
	 * Returns the marker the acquire scripts of {@code key} check: the node's, or on
	 * clusters its slot's ({@link #slotMarkerKey}).
	 */
	public String markerKeyOf(String key) {
		return this.perSlotMarkers ? slotMarkerKey(slot(key)) : this.markerKey;
	}

	/**
	 * Returns the restart guard's marker of one cluster slot.
	 */
	public String slotMarkerKey(int slot) {
		return this.prefix + "node:{" + SlotTags.tag(slot) + "}";
	}

	/**
	 * Returns the owner stamp of one cluster slot ({@link OwnerChange}), beside its
	 * marker.
	 */
	public String slotOwnerKey(int slot) {
		return this.prefix + "owner:{" + SlotTags.tag(slot) + "}";
	}

	/**
	 * Returns the key of the nodes' queue of processes waiting for {@code key}.
	 */
	public String waitersKey(String key) {
		return this.prefix + "waiters:" + tag(key);
	}

	/**
	 * Returns the keys of a read-write lock: the lock (shared with the exclusive lock of
	 * the same key, so that the two exclude each other), its fencing counter (shared
	 * too), the readers and their expiries ({@code readers:}) and the mark of a waiting
	 * writer ({@code writer:}).
	 */
	public String[] readWriteKeys(String key) {
		String tag = tag(key);
		return new String[] { this.lockPrefix + tag, this.prefix + "fence:" + tag, this.prefix + "readers:" + tag,
				this.prefix + "writer:" + tag };
	}

	/**
	 * Returns the keys of a semaphore: slot to holder ({@code permits:}), slot to expiry
	 * ({@code permit-expiries:}) and the semaphore's own fencing counter
	 * ({@code permit-fence:}). Not the exclusive lock's counter: a failed exclusive
	 * attempt's withdrawal may take back its own increment ({@link Script#WITHDRAW}),
	 * which is sound only while nothing else can have raised that counter meanwhile; a
	 * permit's second round raises a counter wherever its slot is held, whatever holds
	 * the lock key, and could have relied on the very value the withdrawal takes back.
	 */
	public String[] permitKeys(String key) {
		String tag = tag(key);
		return new String[] { this.prefix + "permits:" + tag, this.prefix + "permit-expiries:" + tag,
				this.prefix + "permit-fence:" + tag };
	}

	/**
	 * Returns the channel on which a semaphore's releases are published:
	 * {@code <prefix>lock:permits:<tag>}, under the lock prefix so that the ACL channel
	 * pattern of the exclusive lock's hints ({@code &<prefix>lock:*}) allows it too.
	 */
	public String permitChannel(String key) {
		return this.lockPrefix + PERMIT_CHANNEL + tag(key);
	}

	/**
	 * Returns the lock key whose lock is named {@code channel} ({@link #lockKey}), or
	 * {@code null} when no lock key's is.
	 */
	public @Nullable String lockChannelKey(String channel) {
		return channel.startsWith(this.lockPrefix) ? untag(channel.substring(this.lockPrefix.length())) : null;
	}

	/**
	 * Returns the lock key whose semaphore publishes on {@code channel}
	 * ({@link #permitChannel}), or {@code null} when no semaphore's does.
	 */
	public @Nullable String permitChannelKey(String channel) {
		String permits = this.lockPrefix + PERMIT_CHANNEL;
		return channel.startsWith(permits) ? untag(channel.substring(permits.length())) : null;
	}

	/**
	 * Returns the key of the marker by which a single node shows that it kept its data.
	 */
	public String markerKey() {
		return this.markerKey;
	}

	/**
	 * Returns the part of every name of the key that follows its kind, starting with the
	 * key's hash tag (see the class comment).
	 */
	static String tag(String key) {
		if (key.indexOf('}') < 0) {
			return "{" + key + "}";
		}
		return "{" + digest(key) + "}" + key;
	}

	/**
	 * Returns the key that {@link #tag} made {@code tagged} of, or {@code null} when it
	 * made no such name.
	 */
	private static @Nullable String untag(String tagged) {
		int close = tagged.indexOf('}');
		if (!tagged.startsWith("{") || close < 0) {
			return null;
		}
		String key = (close == tagged.length() - 1) ? tagged.substring(1, close) : tagged.substring(close + 1);
		return (!key.isEmpty() && tag(key).equals(tagged)) ? key : null;
	}

	private static String digest(String key) {
		try {
			byte[] hash = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(hash, 0, DIGEST_DIGITS / 2);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform provides SHA-256", ex);
		}
	}

	/**
	 * Refuses a key that cannot name a lock.
	 * @throws IllegalArgumentException naming what is wrong with it
	 */
	public static void check(String key) {
		if (key == null) {
			throw new IllegalArgumentException("Lock key must not be null");
		}
		if (key.isEmpty()) {
			throw new IllegalArgumentException("Lock key must not be empty");
		}
		if (key.length() > MAX_KEY_LENGTH) {
			throw new IllegalArgumentException("Lock key is " + key.length() + " characters long; the limit is "
					+ MAX_KEY_LENGTH + ": lock on a shorter name, such as an id or a hash of the resource");
		}
		int lone = loneSurrogate(key);
		if (lone >= 0) {
			throw new IllegalArgumentException(
					String.format("Lock key holds an unpaired surrogate (\\u%04x at index %d),"
							+ " which has no UTF-8 form: the nodes would see '?' in its place, the key of another lock."
							+ " Lock on well-formed Unicode text", (int) key.charAt(lone), lone));
		}
	}

	/**
	 * Returns the index of the key's first UTF-16 surrogate that is not half of a pair,
	 * or -1: Lettuce writes such a one as {@code ?}, so two keys would share a name.
	 */
	private static int loneSurrogate(String key) {
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return i;
			}
		}
		return -1;
	}

}
