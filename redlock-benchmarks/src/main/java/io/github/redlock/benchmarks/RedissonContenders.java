package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * One single-server {@link RedissonClient} per node, sharing one Netty event loop group
 * and one executor (five clients would start about 250 threads otherwise), and the two
 * Redisson contenders over them: {@code RedissonRedLock} over all nodes, and a plain
 * {@code RLock} on the first node as a reference. Both lock with
 * {@code lockInterruptibly(leaseTime)}: Redisson's blocking lock, its waiters woken by
 * pub/sub, no watchdog.
 */
final class RedissonContenders implements AutoCloseable {

	private final EventLoopGroup eventLoops = new MultiThreadIoEventLoopGroup(
			Math.max(2, Runtime.getRuntime().availableProcessors()), NioIoHandler.newFactory());

	private final ExecutorService executor = Executors.newFixedThreadPool(4);

	private final List<RedissonClient> clients = new ArrayList<>();

	private final long leaseMillis;

	RedissonContenders(List<String> uris, Duration ttl) {
		for (String uri : uris) {
			Config config = new Config();
			config.setEventLoopGroup(this.eventLoops);
			config.setExecutor(this.executor);
			config.setCodec(StringCodec.INSTANCE);
			// enough connections for 16 threads at once, without 24 idle ones per node
			config.useSingleServer()
				.setAddress(uri)
				.setConnectionPoolSize(32)
				.setConnectionMinimumIdleSize(4)
				.setSubscriptionConnectionPoolSize(8)
				.setSubscriptionConnectionMinimumIdleSize(1);
			this.clients.add(Redisson.create(config));
		}
		this.leaseMillis = ttl.toMillis();
	}

	Contender redLock() {
		return new Contender() {

			@Override
			public String name() {
				return "RedissonRedLock";
			}

			@Override
			@SuppressWarnings("deprecation") // deprecated by Redisson; what the issue
												// compares
			public Held acquire(String key) throws InterruptedException {
				RLock[] locks = new RLock[RedissonContenders.this.clients.size()];
				for (int i = 0; i < locks.length; i++) {
					locks[i] = RedissonContenders.this.clients.get(i).getLock(key);
				}
				RedissonRedLock lock = new RedissonRedLock(locks);
				lock.lockInterruptibly(RedissonContenders.this.leaseMillis, TimeUnit.MILLISECONDS);
				return lock::unlock;
			}

			@Override
			public void close() {
			}

		};
	}

	Contender singleNode() {
		return new Contender() {

			@Override
			public String name() {
				return "Redisson RLock (1 node)";
			}

			@Override
			public Held acquire(String key) throws InterruptedException {
				RLock lock = RedissonContenders.this.clients.get(0).getLock(key);
				lock.lockInterruptibly(RedissonContenders.this.leaseMillis, TimeUnit.MILLISECONDS);
				return lock::unlock;
			}

			@Override
			public void close() {
			}

		};
	}

	@Override
	public void close() {
		this.clients.forEach(RedissonClient::shutdown);
		this.eventLoops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
		this.executor.shutdownNow();
	}

}
