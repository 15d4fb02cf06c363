package io.github.redlock.fencing;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A store that follows the fencing recipe of docs/safety-model.md: every write carries
 * the writer's fencing token, and the store rejects a token lower than the highest it has
 * seen, in one step with the write (here a Redis hash and a script; in SQL, the
 * conditional
 * {@code UPDATE record SET value = ?, token = ? WHERE id = ? AND token <= ?}). A holder
 * writes several times under one lease with one token: an equal token passes.
 */
final class FencedStore {

	// KEYS[1] the record, a hash of value and token; ARGV[1] the token, ARGV[2] the
	// value.
	// Returns 1 if written, 0 if rejected for a token below the record's.
	private static final String WRITE = """
			local current = tonumber(redis.call('hget', KEYS[1], 'token') or '0')
			if tonumber(ARGV[1]) < current then return 0 end
			redis.call('hset', KEYS[1], 'value', ARGV[2], 'token', ARGV[1])
			return 1
			""";

	private final RedisCommands<String, String> redis;

	FencedStore(RedisCommands<String, String> redis) {
		this.redis = redis;
	}

	/**
	 * Writes {@code value} to {@code record} unless the record was last written with a
	 * higher token; returns whether it was written.
	 */
	boolean write(String record, long token, String value) {
		Long written = this.redis.eval(WRITE, ScriptOutputType.INTEGER, new String[] { record }, String.valueOf(token),
				value);
		return written == 1L;
	}

	/**
	 * Returns the value last written to {@code record}.
	 */
	String read(String record) {
		return this.redis.hget(record, "value");
	}

}
