package io.github.redlock.annotation;

/**
 * How {@link DistributedLock} locks its key.
 *
 * @author redlock contributors
 */
public enum LockMode {

	/**
	 * One holder at a time: the registry's {@code acquire}. It and {@link #WRITE} on one
	 * key exclude each other, and both exclude {@link #READ}.
	 */
	EXCLUSIVE,

	/**
	 * Any number of readers at a time, and no writer or exclusive holder while they read:
	 * the registry's {@code acquireRead}. A writer that waits goes first.
	 */
	READ,

	/**
	 * One writer, and no reader or exclusive holder: the registry's {@code acquireWrite}.
	 * A method holding the write lock may call one that reads the same key (a downgrade);
	 * a method holding only the read lock is refused the write lock at once. Both rules
	 * are per thread, for methods returning a plain value or {@code void}: a
	 * {@code CompletionStage} or reactive method takes a lease of its own, and waits for
	 * a lock its caller's thread holds as any other caller does.
	 */
	WRITE

}
