package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redlock.embedded.RedisNode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * Counts the lock attempts that one node saw on one key while a run went on, split into
 * those the node granted and those it refused, for this registry's acquire script and for
 * the bare quorum's {@code SET NX PX}.
 * <p>
 * Granted: every granted attempt of either sets the lock key with an expiry, and Redis
 * tells a {@code SET} with an expiry as an {@code expire} keyspace event on that key;
 * nothing else in a run on one key gives the lock key an expiry (a hold is far shorter
 * than a third of the TTL, so the watchdog extends nothing; the queue's mark of a held
 * value keeps its TTL). So the count turns the node's keyspace events on (class
 * {@code g}, keyspace channel {@code K}) for the run only, subscribes to the key's
 * channel and counts them. Refused: the registry's acquire script runs {@code PTTL} only
 * when the key is held, and no other script of a run on one exclusive key runs it
 * ({@code queue-waiter} reads with {@code GET} for that reason); every bare attempt runs
 * one {@code SET}, so its refused ones are its {@code SET} calls less those granted.
 * Commands that scripts run count in {@code INFO commandstats}.
 */
final class NodeAttempts implements AutoCloseable {

	private final RedisNode node;

	private final RedisClient client;

	private final StatefulRedisPubSubConnection<String, String> events;

	private final AtomicLong expiries = new AtomicLong();

	private volatile String channel = "";

	NodeAttempts(RedisNode node) {
		this.node = node;
		this.client = RedisClient.create(RedisURI.create(node.uri()));
		this.events = this.client.connectPubSub();
		this.events.setTimeout(Duration.ofSeconds(30));
		this.events.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(String channel, String message) {
				if (channel.equals(NodeAttempts.this.channel) && "expire".equals(message)) {
					NodeAttempts.this.expiries.incrementAndGet();
				}
			}

		});
	}

	/**
	 * Runs {@code run} and counts the attempts on {@code nodeKey} meanwhile.
	 * @param nodeKey the lock key as it is named on the node
	 * @param registry whether the attempts are this registry's (else the bare quorum's)
	 * @param run what makes the attempts; it returns once every attempt was answered
	 * @return what the node saw
	 */
	Count count(String nodeKey, boolean registry, ComparisonBenchmark.Run run) throws Exception {
		this.channel = "__keyspace@0__:" + nodeKey;
		this.node.call("CONFIG", "SET", "notify-keyspace-events", "Kg");
		try {
			this.events.sync().subscribe(this.channel);
			long expiriesBefore = this.expiries.get();
			String before = commandStats();
			run.run();
			String after = commandStats();
			// the node wrote every event of the run to this connection before the reply
			this.events.sync().ping();
			long granted = this.expiries.get() - expiriesBefore;
			this.events.sync().unsubscribe(this.channel);
			long refused = registry ? calls(after, "pttl") - calls(before, "pttl")
					: calls(after, "set") - calls(before, "set") - granted;
			return new Count(granted, refused);
		}
		finally {
			this.node.call("CONFIG", "SET", "notify-keyspace-events", "");
		}
	}

	private String commandStats() {
		return this.node.call("INFO", "commandstats").toString();
	}

	private static long calls(String stats, String command) {
		String prefix = "cmdstat_" + command + ":calls=";
		return stats.lines()
			.filter((line) -> line.startsWith(prefix))
			.mapToLong((line) -> Long.parseLong(line.substring(prefix.length(), line.indexOf(','))))
			.findFirst()
			.orElse(0);
	}

	@Override
	public void close() {
		try {
			this.events.close();
		}
		finally {
			this.client.shutdown();
		}
	}

	/**
	 * The attempts one node saw.
	 *
	 * @param granted those it granted
	 * @param refused those it refused, the key being held
	 */
	record Count(long granted, long refused) {

		long attempts() {
			return this.granted + this.refused;
		}

	}

}
