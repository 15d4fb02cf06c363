package io.github.redlock.torture;

/**
 * The shared resource outside the quorum: a redis-server of its own that logs every
 * write, accepted or not, in arrival order. A fenced store accepts a write only if its
 * token is above every token it accepted for the key before, or equal to the highest and
 * from the same critical section (a section writes several times with one token). A
 * trusting store accepts every write, as a resource without fencing would: the checker
 * must then find what the fencing would have stopped.
 */
final class TortureStore {

	/** Accepts only writes that pass the fence. */
	static final String FENCED = "fenced";

	/** Accepts every write. */
	static final String TRUSTING = "trusting";

	// KEYS[1] "<highest accepted token> <its section>" for the key, KEYS[2] the key's
	// write log; ARGV[1] token, ARGV[2] operation id, ARGV[3] section id, ARGV[4] FENCED
	// or TRUSTING.
	// Returns 1 if accepted, 0 if rejected as stale.
	static final String WRITE = """
			local token = tonumber(ARGV[1])
			local highest, holder = 0, ''
			local current = redis.call('get', KEYS[1])
			if current then
			  local space = string.find(current, ' ')
			  highest = tonumber(string.sub(current, 1, space - 1))
			  holder = string.sub(current, space + 1)
			end
			local accepted = 0
			if ARGV[4] == 'trusting' or token > highest or (token == highest and holder == ARGV[3]) then
			  accepted = 1
			  if token > highest then
			    redis.call('set', KEYS[1], ARGV[1] .. ' ' .. ARGV[3])
			  end
			end
			redis.call('rpush', KEYS[2], ARGV[2] .. ' ' .. ARGV[1] .. ' ' .. accepted .. ' ' .. ARGV[3])
			return accepted
			""";

	/** The read-write lock's key: readers and writers contend on it. */
	static final String READ_WRITE_KEY = "r0";

	/** The semaphore's key. */
	static final String SEMAPHORE_KEY = "s0";

	/** The semaphore's permits. */
	static final int PERMITS = 2;

	private TortureStore() {
	}

	static String highestKey(String key) {
		return "highest:" + key;
	}

	static String logKey(String key) {
		return "log:" + key;
	}

}
