package io.github.redlock.benchmarks;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

/**
 * The least a Redlock client does, as a yardstick: {@code SET key value NX PX ttl} on
 * every node at once over one multiplexed Lettuce connection per node, held once a
 * majority said OK within the validity, released by a compare-and-delete script on every
 * node. A failed attempt deletes (without waiting) on the nodes that did not answer
 * "held", then retries after a short random delay. No fencing, no restart guard, no
 * reentrancy, no watchdog.
 */
final class BareQuorumContender implements Contender {

	static final String COMPARE_AND_DELETE = "if redis.call('get', KEYS[1]) == ARGV[1] "
			+ "then return redis.call('del', KEYS[1]) else return 0 end";

	private static final long ANSWER_TIMEOUT_MILLIS = 5_000;

	private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

	private static final int HELD = 1;

	private static final int REFUSED = 2;

	private final SecureRandom random = new SecureRandom();

	private final ClientResources resources = DefaultClientResources.create();

	private final List<RedisClient> clients = new ArrayList<>();

	private final List<RedisAsyncCommands<String, String>> nodes = new ArrayList<>();

	private final String releaseSha;

	private final long ttlMillis;

	private final long retryNanos;

	BareQuorumContender(List<String> uris, Duration ttl, Duration retryDelay) {
		String sha = null;
		for (String uri : uris) {
			RedisClient client = RedisClient.create(this.resources, RedisURI.create(uri));
			this.clients.add(client);
			StatefulRedisConnection<String, String> connection = client.connect();
			this.nodes.add(connection.async());
			sha = connection.sync().scriptLoad(COMPARE_AND_DELETE);
		}
		this.releaseSha = sha;
		this.ttlMillis = ttl.toMillis();
		this.retryNanos = Math.max(1, retryDelay.toNanos());
	}

	@Override
	public String name() {
		return "bare quorum";
	}

	@Override
	public Held acquire(String key) throws Exception {
		long deadline = System.nanoTime() + WAIT_NANOS;
		while (true) {
			Held held = attempt(key);
			if (held != null) {
				return held;
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("bare quorum: no majority for " + key + " within 30s");
			}
			// between 1x and 2x the retry delay, so that contenders fall out of step
			LockSupport.parkNanos(this.retryNanos + ThreadLocalRandom.current().nextLong(this.retryNanos));
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
		}
	}

	private Held attempt(String key) throws Exception {
		int count = this.nodes.size();
		int quorum = count / 2 + 1;
		byte[] bytes = new byte[20];
		this.random.nextBytes(bytes);
		String value = Base64.getEncoder().encodeToString(bytes);
		long start = System.nanoTime();
		AtomicIntegerArray answers = new AtomicIntegerArray(count);
		AtomicInteger granted = new AtomicInteger();
		AtomicInteger denied = new AtomicInteger();
		CompletableFuture<Boolean> decided = new CompletableFuture<>();
		SetArgs args = SetArgs.Builder.nx().px(this.ttlMillis);
		for (int i = 0; i < count; i++) {
			int node = i;
			this.nodes.get(i).set(key, value, args).whenComplete((reply, failure) -> {
				if (failure == null && "OK".equals(reply)) {
					answers.set(node, HELD);
					if (granted.incrementAndGet() == quorum) {
						decided.complete(true);
					}
				}
				else {
					if (failure == null) {
						answers.set(node, REFUSED);
					}
					if (denied.incrementAndGet() == count - quorum + 1) {
						decided.complete(false);
					}
				}
			});
		}
		boolean won = decided.get(ANSWER_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
		long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		long drift = this.ttlMillis / 100 + 2;
		if (won && this.ttlMillis - elapsedMillis - drift > 0) {
			return () -> release(key, value);
		}
		for (int i = 0; i < count; i++) {
			if (answers.get(i) != REFUSED) {
				this.nodes.get(i).evalsha(this.releaseSha, ScriptOutputType.INTEGER, new String[] { key }, value);
			}
		}
		return null;
	}

	private void release(String key, String value) {
		CompletableFuture<?>[] replies = new CompletableFuture<?>[this.nodes.size()];
		for (int i = 0; i < replies.length; i++) {
			replies[i] = this.nodes.get(i)
				.evalsha(this.releaseSha, ScriptOutputType.INTEGER, new String[] { key }, value)
				.toCompletableFuture();
		}
		try {
			CompletableFuture.allOf(replies).get(ANSWER_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while releasing " + key, ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException("bare quorum: release of " + key + " failed", ex);
		}
	}

	@Override
	public void close() {
		this.clients.forEach(RedisClient::shutdown);
		this.resources.shutdown();
	}

}
