package io.github.redlock;

/**
 * Thrown when a lock was lost while its holder was still working under it. The work that
 * ran may have overlapped with another holder's.
 *
 * @author redlock contributors
 */
public class LockLostException extends RedlockException {

	private static final long serialVersionUID = 1L;

	private final String key;

	/**
	 * Creates an exception.
	 * @param key the lock's key
	 * @param reason why the lock was lost
	 */
	public LockLostException(String key, String reason) {
		super("Lock '" + LockKeys.printable(key) + "' was lost: " + reason
				+ ". The integrity of data protected by this lock may have been compromised.");
		this.key = key;
	}

	/**
	 * Returns the key of the lock that was lost.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

}
