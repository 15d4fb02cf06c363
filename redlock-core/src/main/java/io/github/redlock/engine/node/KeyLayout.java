package io.github.redlock.engine.node;

/**
 * Where a lock lives on the nodes, and which keys are acceptable. For a key {@code k} and
 * the prefix {@code p}, each node holds:
 * <ul>
 * <li>{@code p + "lock:" + k}, the lock value, with the lease's TTL;</li>
 * <li>{@code p + "fence:" + k}, the fencing counter, kept for the retention;</li>
 * <li>{@code p + "node"}, one marker per node, which the restart guard reads.</li>
 * </ul>
 * Read-write locks and semaphores add keys of their own ({@link #readWriteKeys},
 * {@link #permitKeys}).
 *
 * @author redlock contributors
 */
public final class KeyLayout {

	/** The longest lock key accepted, in characters. */
	public static final int MAX_KEY_LENGTH = 1024;

	private final String lockPrefix;

	private final String fencePrefix;

	private final String markerKey;

	private final String prefix;

	public KeyLayout(String keyPrefix) {
		this.prefix = keyPrefix;
		this.lockPrefix = keyPrefix + "lock:";
		this.fencePrefix = keyPrefix + "fence:";
		this.markerKey = keyPrefix + "node";
	}

	/**
	 * Returns the keys every lock script takes: the lock, its fencing counter, and the
	 * node marker.
	 */
	public String[] nodeKeys(String key) {
		return new String[] { this.lockPrefix + key, this.fencePrefix + key, this.markerKey };
	}

	/**
	 * Returns the key of the nodes' queue of processes waiting for {@code key} (prefix,
	 * {@code waiters:}, key).
	 */
	public String waitersKey(String key) {
		return this.prefix + "waiters:" + key;
	}

	/**
	 * Returns the keys of a read-write lock: the lock (shared with the exclusive lock of
	 * the same key, so that the two exclude each other), its fencing counter (shared
	 * too), the readers and their expiries (prefix, {@code readers:}, key) and the mark
	 * of a waiting writer (prefix, {@code writer:}, key).
	 */
	public String[] readWriteKeys(String key) {
		return new String[] { this.lockPrefix + key, this.fencePrefix + key, this.prefix + "readers:" + key,
				this.prefix + "writer:" + key };
	}

	/**
	 * Returns the keys of a semaphore: slot to holder (prefix, {@code permits:}, key),
	 * slot to expiry (prefix, {@code permit-expiries:}, key) and the semaphore's own
	 * fencing counter (prefix, {@code permit-fence:}, key). Not the exclusive lock's
	 * counter: a failed exclusive attempt's withdrawal may take back its own increment
	 * ({@link Script#WITHDRAW}), which is sound only while nothing else can have raised
	 * that counter meanwhile; a permit's second round raises a counter wherever its slot
	 * is held, whatever holds the lock key, and could have relied on the very value the
	 * withdrawal takes back.
	 */
	public String[] permitKeys(String key) {
		return new String[] { this.prefix + "permits:" + key, this.prefix + "permit-expiries:" + key,
				this.prefix + "permit-fence:" + key };
	}

	/**
	 * What follows {@link #lockPrefix()} in the name of a semaphore's release hint
	 * channel, before its key.
	 */
	public static final String PERMIT_CHANNEL = "permits:";

	/**
	 * Returns the channel on which a semaphore's releases are published:
	 * {@code <lockPrefix>permits:<key>}, under the lock prefix so that the ACL channel
	 * pattern of the exclusive lock's hints ({@code &<prefix>lock:*}) allows it too.
	 */
	public String permitChannel(String key) {
		return this.lockPrefix + PERMIT_CHANNEL + key;
	}

	/**
	 * Returns what precedes a key in its lock's key on the nodes: also the start of the
	 * release hint channels' names, the exclusive lock's and the semaphores'.
	 */
	public String lockPrefix() {
		return this.lockPrefix;
	}

	/**
	 * Returns the key of the marker by which a node shows that it kept its data.
	 */
	public String markerKey() {
		return this.markerKey;
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
	}

}
