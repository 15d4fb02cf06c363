package io.github.redlock.torture;

/**
 * The shared resource outside the quorum: a redis-server of its own that accepts a write
 * only if its fencing token is at least the highest it has accepted for that key, and
 * logs every write, accepted or not, in arrival order.
 */
final class TortureStore {

	// KEYS[1] highest accepted token of the key, KEYS[2] the key's write log;
	// ARGV[1] token, ARGV[2] operation id.
	// Returns 1 if accepted, 0 if rejected as stale.
	static final String WRITE = """
			local highest = tonumber(redis.call('get', KEYS[1]) or '0')
			local accepted = 0
			if tonumber(ARGV[1]) >= highest then
			  redis.call('set', KEYS[1], ARGV[1])
			  accepted = 1
			end
			redis.call('rpush', KEYS[2], ARGV[2] .. ' ' .. ARGV[1] .. ' ' .. accepted)
			return accepted
			""";

	/** List of every critical section: {@code key client token start end safeEnd}. */
	static final String SECTIONS = "sections";

	/**
	 * List of every write as the client saw it:
	 * {@code opId key token send late accepted}.
	 */
	static final String WRITES = "writes";

	private TortureStore() {
	}

	static String highestKey(String key) {
		return "highest:" + key;
	}

	static String logKey(String key) {
		return "log:" + key;
	}

}
