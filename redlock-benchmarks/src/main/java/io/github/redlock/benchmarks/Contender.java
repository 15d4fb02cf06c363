package io.github.redlock.benchmarks;

/**
 * One lock implementation under comparison: a blocking acquire that returns what releases
 * it, on the same thread.
 */
interface Contender extends AutoCloseable {

	/**
	 * Returns the name printed in the table.
	 * @return the name
	 */
	String name();

	/**
	 * Acquires {@code key}, waiting as long as the implementation's own waiting takes
	 * (bounded by a generous wait time), and returns how to release it.
	 * @param key the key
	 * @return the hold, released on the calling thread
	 * @throws Exception when the lock could not be had
	 */
	Held acquire(String key) throws Exception;

	@Override
	void close();

	/**
	 * A held lock.
	 */
	@FunctionalInterface
	interface Held {

		/**
		 * Releases the lock; returns when the implementation's release call returns.
		 */
		void release();

	}

}
