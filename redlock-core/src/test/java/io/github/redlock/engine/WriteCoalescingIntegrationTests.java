package io.github.redlock.engine;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.NodeReply;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.node.WriteCoalescing;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Concurrent callers' commands to one node go out in one write (issue 15, item 4), and
 * nothing written is left unsent: a lone command, a command sent from a reply callback on
 * the I/O thread (the NOSCRIPT reload, a chained call), and commands on a channel that a
 * reconnect made. Real {@code redis-server} nodes; the application's
 * {@link ClientResources} are given to the registry, as the auto-configuration does, with
 * a {@link NettyCustomizer} of the test's that counts, next to the socket, what each node
 * channel writes and how often it flushes.
 * <p>
 * The client's count is what decides: the servers' own {@code total_reads_processed}
 * falls below their commands with or without coalescing on a loaded 2-core machine (a
 * busy server reads what several separate writes left in its socket at once: about 3.7
 * scripts per read at 16 threads without coalescing here, 5 to 6 with it), so it is
 * printed and checked only to be below the commands.
 */
class WriteCoalescingIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private static final WireCounter counter = new WireCounter();

	/** The application's resources, which no registry may shut down. */
	private static final ClientResources application = DefaultClientResources.builder()
		.nettyCustomizer(counter)
		.build();

	private static final int THREADS = 16;

	private static final Duration RUN = Duration.ofMillis(1500);

	@AfterAll
	static void shutDown() throws Exception {
		application.shutdown(0, 2, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
	}

	private static RedlockRegistry registry(boolean coalesce) {
		return TestRegistries.builder(fleet)
			.nodeTimeout(Duration.ofMillis(500))
			.clientResources(application)
			.tune((options) -> options.coalesceWrites = coalesce)
			.build()
			.start();
	}

	@Test
	void concurrentCommandsToOneNodeGoOutInOneWrite() throws Exception {
		try (RedlockRegistry registry = registry(true)) {
			Figures figures = cycles(registry, "coalesced");
			// before WriteCoalescing, every command was a write of its own: 1.00 (the
			// test below)
			assertThat(figures.commandsPerWrite()).as("commands per client write").isGreaterThan(1.3);
			assertThat(figures.scriptsPerRead()).as("scripts per server read").isGreaterThan(1.3);
		}
	}

	@Test
	void withoutCoalescingEachCommandIsAWriteOfItsOwn() throws Exception {
		// the check above, turned off: shows that the count it rests on can fail
		try (RedlockRegistry registry = registry(false)) {
			Figures figures = cycles(registry, "not coalesced");
			assertThat(figures.commandsPerWrite()).as("commands per client write").isLessThan(1.1);
		}
	}

	@Test
	void aLoneCommandIsSentAtOnce() throws Exception {
		try (RedlockRegistry registry = registry(true)) {
			long slowest = 0;
			for (int i = 0; i < 200; i++) {
				long start = System.nanoTime();
				// no waiting: a command left unflushed would time out every node
				registry.acquire("lone:" + i, Duration.ofSeconds(2), Duration.ZERO).release();
				slowest = Math.max(slowest, System.nanoTime() - start);
			}
			System.out.printf("one thread, 200 sequential cycles: slowest %.2f ms%n", slowest / 1e6);
			// the order of magnitude of the node timeout, nothing tight
			assertThat(Duration.ofNanos(slowest)).isLessThan(Duration.ofSeconds(2));
		}
	}

	@Test
	void commandsSentFromAReplyCallbackOnTheIoThreadAreFlushed() throws Exception {
		try (RedlockRegistry registry = registry(true)) {
			registry.acquire("warm-up", Duration.ofSeconds(2), Duration.ZERO).release();
			NodeClient node = (NodeClient) registry.parts().fleet.node(0);
			AtomicReference<String> callbackThread = new AtomicReference<>();
			CompletableFuture<NodeReply> chained;
			// paused, so that the reply comes after the callback is in place and runs
			// it on the I/O thread, while the reply is being read: the second command's
			// flush waits for the end of that read, and must not wait longer
			fleet.node(0).pause();
			try {
				chained = node.eval(Script.RELEASE, new String[] { "redlock:lock:{chained}" }, "value")
					.thenCompose((first) -> {
						callbackThread.set(Thread.currentThread().getName());
						return node.eval(Script.RELEASE, new String[] { "redlock:lock:{chained}" }, "value");
					});
			}
			finally {
				fleet.node(0).resume();
			}
			NodeReply reply = chained.get(10, TimeUnit.SECONDS);
			assertThat(callbackThread.get()).contains("lettuce");
			assertThat(reply.answered()).as("%s", reply.failure()).isTrue();
		}
	}

	@Test
	void scriptReloadedAfterNoScriptFromTheIoThreadIsFlushed() throws Exception {
		try (RedlockRegistry registry = registry(true)) {
			registry.acquire("warm-up", Duration.ofSeconds(2), Duration.ZERO).release();
			for (RedisNode node : fleet.fleet().nodes()) {
				node.call("SCRIPT", "FLUSH");
			}
			long scriptsBefore = evalCalls();
			// EVALSHA answers NOSCRIPT on every node; the EVAL that loads the script goes
			// out from the reply callback, on the I/O thread
			Lease lease = registry.acquire("reloaded", Duration.ofSeconds(2), Duration.ZERO);
			lease.release();
			assertThat(evalCalls() - scriptsBefore).as("EVAL calls").isGreaterThanOrEqualTo(3);
		}
	}

	@Test
	void aChannelMadeByAReconnectIsCoalescedToo() throws Exception {
		try (RedlockRegistry registry = registry(true)) {
			registry.acquire("before-restart", Duration.ofSeconds(2), Duration.ZERO).release();
			WriteCoalescing coalescing = WriteCoalescing.of(registry.parts().fleet.resources());
			assertThat(coalescing).isNotNull();
			long channels = coalescing.channels();
			fleet.node(0).restart(false);
			await().atMost(Duration.ofSeconds(20)).until(() -> coalescing.channels() > channels);
			await().atMost(Duration.ofSeconds(20)).until(() -> registry.parts().fleet.node(0).isConnected());
			// a lone command on the new channel, with no other to push it out
			await().atMost(Duration.ofSeconds(20))
				.until(() -> registry.parts().fleet.node(0)
					.eval(Script.RELEASE, new String[] { "redlock:lock:{after}" }, "value")
					.get(10, TimeUnit.SECONDS)
					.answered());
		}
	}

	@Test
	void theApplicationsResourcesAreSharedAndOutliveTheRegistry() throws Exception {
		// an application client holds Lettuce's (reference-counted) event loops
		RedisClient client = RedisClient.create(application, RedisURI.create(fleet.uris().get(0)));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			counter.groups.clear();
			try (RedlockRegistry registry = registry(true)) {
				ClientResources used = registry.parts().fleet.resources();
				assertThat(used).isNotSameAs(application);
				assertThat(used.eventLoopGroupProvider()).isSameAs(application.eventLoopGroupProvider());
				assertThat(used.timer()).isSameAs(application.timer());
				assertThat(used.eventExecutorGroup()).isSameAs(application.eventExecutorGroup());
				registry.acquire("shared", Duration.ofSeconds(2), Duration.ZERO).release();
				// the application's customizer ran for the registry's channels, which run
				// on the application client's event loops
				assertThat(counter.groups).hasSize(1);
			}
			// the registry closed, and shut its copy down: the application's client still
			// works, on event loops that are not shutting down
			assertThat(connection.sync().ping()).isEqualTo("PONG");
			assertThat(counter.groups.iterator().next().isShuttingDown()).isFalse();
			assertThat(application.eventExecutorGroup().isShuttingDown()).isFalse();
		}
		finally {
			client.shutdown(0, 2, TimeUnit.SECONDS);
		}
	}

	@Test
	void resourcesThatCannotBeCopiedAreUsedAsTheyAre() throws Exception {
		ClientResources uncopyable = (ClientResources) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { ClientResources.class }, (proxy, method, args) -> {
					if (method.getName().equals("mutate")) {
						throw new UnsupportedOperationException("no copies");
					}
					try {
						return method.invoke(application, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
		try (RedlockRegistry registry = TestRegistries.builder(fleet).clientResources(uncopyable).build().start()) {
			assertThat(registry.parts().fleet.resources()).isSameAs(uncopyable);
			registry.acquire("uncopyable", Duration.ofSeconds(2), Duration.ZERO).release();
		}
		assertThat(application.eventExecutorGroup().isShuttingDown()).isFalse();
	}

	/**
	 * Runs acquire+release cycles on new keys from 16 threads and reads the client's and
	 * the servers' counts.
	 */
	private static Figures cycles(RedlockRegistry registry, String label) throws Exception {
		registry.acquire("warm-up", Duration.ofSeconds(2), Duration.ZERO).release();
		long[] before = serverCounts();
		long writesBefore = counter.writes.sum();
		long flushesBefore = counter.flushes.sum();
		AtomicLong cycles = new AtomicLong();
		AtomicLong next = new AtomicLong();
		long end = System.nanoTime() + RUN.toNanos();
		List<CompletableFuture<Void>> threads = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			threads.add(CompletableFuture.runAsync(() -> {
				while (System.nanoTime() - end < 0) {
					try {
						registry
							.acquire("cycle:" + label + ":" + next.incrementAndGet(), Duration.ofSeconds(2),
									Duration.ofSeconds(10))
							.release();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						throw new IllegalStateException(ex);
					}
					cycles.incrementAndGet();
				}
			}, (task) -> new Thread(task, "cycles-" + label).start()));
		}
		CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		long[] after = serverCounts();
		Figures figures = new Figures(counter.writes.sum() - writesBefore, counter.flushes.sum() - flushesBefore,
				after[0] - before[0], after[1] - before[1]);
		String server = (String) fleet.node(0).call("INFO", "server");
		int version = server.indexOf("redis_version:");
		System.out.printf(
				"%s, %d threads, 3 nodes (%s): %d cycles; client: %.2f commands per write; servers: %.2f scripts per read%n",
				label, THREADS, server.substring(version, server.indexOf('\r', version)), cycles.get(),
				figures.commandsPerWrite(), figures.scriptsPerRead());
		return figures;
	}

	/** Sums the nodes' scripts run (EVALSHA and EVAL calls) and reads processed. */
	private static long[] serverCounts() {
		long scripts = 0;
		long reads = 0;
		for (RedisNode node : fleet.fleet().nodes()) {
			scripts += NodeStats.scripts(node);
			reads += NodeStats.field(node, "stats", "total_reads_processed");
		}
		return new long[] { scripts, reads };
	}

	private static long evalCalls() {
		long calls = 0;
		for (RedisNode node : fleet.fleet().nodes()) {
			calls += NodeStats.calls(node, "eval");
		}
		return calls;
	}

	/**
	 * What the clients wrote and flushed, and what the servers ran and read.
	 */
	private record Figures(long writes, long flushes, long scripts, long reads) {

		double commandsPerWrite() {
			return this.writes / (double) Math.max(1, this.flushes);
		}

		double scriptsPerRead() {
			return this.scripts / (double) Math.max(1, this.reads);
		}

	}

	/**
	 * Counts, at the socket end of every node channel, the encoded commands written and
	 * the flushes that send them, and remembers the event loop groups the channels run
	 * on.
	 */
	private static final class WireCounter implements NettyCustomizer {

		final LongAdder writes = new LongAdder();

		final LongAdder flushes = new LongAdder();

		final Set<EventLoopGroup> groups = ConcurrentHashMap.newKeySet();

		@Override
		public void afterChannelInitialized(Channel channel) {
			this.groups.add(channel.eventLoop().parent());
			channel.pipeline().addFirst(new ChannelOutboundHandlerAdapter() {

				@Override
				public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
					if (msg instanceof ByteBuf) {
						WireCounter.this.writes.increment();
					}
					ctx.write(msg, promise);
				}

				@Override
				public void flush(ChannelHandlerContext ctx) throws Exception {
					WireCounter.this.flushes.increment();
					ctx.flush();
				}

			});
		}

	}

}
