package io.github.redlock.engine.node;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.redlock.embedded.RedisNode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the script contract tests share: EVAL of a script's text with its KEYS and ARGV on
 * one real node, the node's clock, lock values laid out as {@link LockValues} makes them,
 * and a subscriber that reads what a script publishes.
 */
final class ScriptContractSupport {

	/** A day, as the client sends a fencing counter's retention. */
	static final String RETENTION = "86400000";

	/**
	 * The fencing counter's start an acquire script is sent (the nodes' agreed clock in
	 * µs, in 2026).
	 */
	static final long START = 1_795_000_000_000_000L;

	/** {@link #START} as the scripts take it. */
	static final String START_TEXT = String.valueOf(START);

	static final long RETENTION_MS = 86_400_000L;

	private static final LockValues VALUES = new LockValues();

	private ScriptContractSupport() {
	}

	/** Runs the script's text by EVAL with the keys and arguments. */
	static Object eval(RedisNode node, Script script, List<String> keys, String... argv) {
		List<String> command = new ArrayList<>();
		command.add("EVAL");
		command.add(script.text());
		command.add(String.valueOf(keys.size()));
		command.addAll(keys);
		command.addAll(List.of(argv));
		return node.call(command.toArray(String[]::new));
	}

	/** Runs the script and returns its integer reply. */
	static long evalLong(RedisNode node, Script script, List<String> keys, String... argv) {
		Object reply = eval(node, script, keys, argv);
		assertThat(reply).as("%s's reply", script.name()).isInstanceOf(Long.class);
		return (Long) reply;
	}

	/** A fresh lock value: a 27-character secret, then the owner ":host:pid:thread". */
	static String lockValue() {
		return VALUES.next(VALUES.owner());
	}

	/** The value with the mark a waiting process writes after the secret. */
	static String marked(String value) {
		return LockValues.secret(value) + LockValues.MARK + value.substring(LockValues.SECRET_LENGTH);
	}

	/** The node's clock in microseconds. */
	static long nodeMicros(RedisNode node) {
		List<?> time = (List<?>) node.call("TIME");
		return Long.parseLong((String) time.get(0)) * 1_000_000L + Long.parseLong((String) time.get(1));
	}

	/** The node's clock in milliseconds. */
	static long nodeMillis(RedisNode node) {
		return nodeMicros(node) / 1000;
	}

	static long pttl(RedisNode node, String key) {
		return (Long) node.call("PTTL", key);
	}

	static String get(RedisNode node, String key) {
		return (String) node.call("GET", key);
	}

	static long counter(RedisNode node, String key) {
		return Long.parseLong(get(node, key));
	}

	/**
	 * A subscriber on one channel of the node; {@link #next()} reads what was published
	 * there in order. A check that a script published nothing publishes a sentinel after
	 * it and reads that first ({@link #nothingBefore}).
	 */
	static final class Subscriber implements AutoCloseable {

		private final RedisNode node;

		private final String channel;

		private final RedisClient client;

		private final StatefulRedisPubSubConnection<String, String> connection;

		private final BlockingQueue<String> messages = new LinkedBlockingQueue<>();

		Subscriber(RedisNode node, String channel) {
			this.node = node;
			this.channel = channel;
			this.client = RedisClient.create("redis://127.0.0.1:" + node.port());
			this.connection = this.client.connectPubSub();
			this.connection.addListener(new RedisPubSubAdapter<>() {
				@Override
				public void message(String from, String message) {
					Subscriber.this.messages.add(message);
				}
			});
			this.connection.sync().subscribe(channel);
		}

		/** The next message on the channel, waiting up to ten seconds for it. */
		String next() throws InterruptedException {
			String message = this.messages.poll(Duration.ofSeconds(10).toMillis(), TimeUnit.MILLISECONDS);
			assertThat(message).as("a message on %s", this.channel).isNotNull();
			return message;
		}

		/** Asserts that nothing was published on the channel before now. */
		void nothingBefore() throws InterruptedException {
			this.node.call("PUBLISH", this.channel, "(sentinel)");
			assertThat(next()).as("the first message on %s", this.channel).isEqualTo("(sentinel)");
		}

		@Override
		public void close() {
			this.connection.close();
			this.client.shutdown();
		}

	}

}
