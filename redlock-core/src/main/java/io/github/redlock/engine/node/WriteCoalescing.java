package io.github.redlock.engine.node;

import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;

import io.lettuce.core.event.DefaultEventPublisherOptions;
import io.lettuce.core.protocol.CommandHandler;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import org.jspecify.annotations.Nullable;

/**
 * Makes the commands that concurrent callers send to one node go out in one write: one
 * system call on the client, one read on the server, instead of one each.
 * <p>
 * Lettuce writes and flushes every command on its own: from a caller's thread it hands
 * the channel's event loop one task per command, and each task writes the command and
 * flushes it. A {@link FlushHolder}, put into each node channel's pipeline in front of
 * Lettuce's {@link CommandHandler}, holds those flushes back and sends what they held in
 * one flush:
 * <ul>
 * <li>when the event loop next runs its tasks: the first held flush queues one flush task
 * behind the write tasks already queued there, which later flushes join. It never waits
 * for a timer, so a lone command waits for nothing but that task;</li>
 * <li>at the end of a read, for commands sent from a reply callback on the I/O thread (a
 * NOSCRIPT reload, a release chained on an acquisition's reply): earlier than the task,
 * which then finds nothing left;</li>
 * <li>at once after 256 held flushes, and before the channel closes or disconnects.</li>
 * </ul>
 * The flush task is queued for every held flush, so nothing written waits for an event
 * that might not come (such as the end of a read). This is what Netty's
 * {@code FlushConsolidationHandler} does, with that one difference and without a future
 * per flush.
 * <p>
 * Each channel, the first and every one a reconnect makes, gets a holder of its own from
 * the {@link NettyCustomizer} of the resources the node clients use. When the registry is
 * given the application's resources, it uses a {@linkplain #sharing copy} that shares
 * their event loops, timer and executors and differs only in adding the holder.
 * <p>
 * Seeing every read, the holder also notes when a node last sent anything, on any of the
 * registry's connections to it ({@link #lastRead}): replies to commands that already
 * timed out included, which Lettuce drops unseen. {@link NodeSilence} tells a node that
 * is only slow from one that sends nothing by it.
 *
 * @author redlock contributors
 */
public final class WriteCoalescing implements NettyCustomizer {

	/** The handler's name in a node channel's pipeline. */
	static final String HANDLER_NAME = "redlockWriteCoalescing";

	private final @Nullable NettyCustomizer delegate;

	/** How many channels got the handler: a seam for tests of the reconnect path. */
	private final LongAdder channels = new LongAdder();

	/** When each node, by remote address, last sent anything: see {@link #lastRead}. */
	private final ConcurrentMap<SocketAddress, ReadClock> reads = new ConcurrentHashMap<>();

	private WriteCoalescing(@Nullable NettyCustomizer delegate) {
		this.delegate = delegate;
	}

	/**
	 * Returns a customizer that adds the handler to every node channel.
	 */
	public static WriteCoalescing create() {
		return new WriteCoalescing(null);
	}

	/**
	 * Returns resources that share everything with {@code resources} (event loops, timer,
	 * computation executors, event bus, latency recorder, the application's own
	 * {@link NettyCustomizer}, which still runs first) and add the handler to every node
	 * channel. Shutting the copy down shuts down nothing it shares: Lettuce's
	 * {@code mutate()} alone would create new event loops and might stop the
	 * application's timer, so each shared part is set again here, which marks it shared.
	 * @param resources the application's resources, which the copy never shuts down
	 */
	public static ClientResources sharing(ClientResources resources) {
		WriteCoalescing customizer = new WriteCoalescing(resources.nettyCustomizer());
		return resources.mutate()
			.eventLoopGroupProvider(resources.eventLoopGroupProvider())
			.eventExecutorGroup(resources.eventExecutorGroup())
			.timer(resources.timer())
			.commandLatencyRecorder(resources.commandLatencyRecorder())
			// the application's publisher reports the shared recorder already
			.commandLatencyPublisherOptions(DefaultEventPublisherOptions.disabled())
			.nettyCustomizer(customizer)
			.build();
	}

	/**
	 * Returns the customizer of resources made by {@link #sharing}, or {@code null}.
	 */
	public static @Nullable WriteCoalescing of(ClientResources resources) {
		return (resources.nettyCustomizer() instanceof WriteCoalescing coalescing) ? coalescing : null;
	}

	@Override
	public void afterBootstrapInitialized(Bootstrap bootstrap) {
		if (this.delegate != null) {
			this.delegate.afterBootstrapInitialized(bootstrap);
		}
	}

	@Override
	public void afterChannelInitialized(Channel channel) {
		if (this.delegate != null) {
			this.delegate.afterChannelInitialized(channel);
		}
		ChannelHandlerContext commands = channel.pipeline().context(CommandHandler.class);
		if (commands != null && channel.pipeline().get(HANDLER_NAME) == null) {
			// in front of the command handler: it sees the reads the replies come in,
			// and the flushes of every command, before they are encoded
			channel.pipeline().addBefore(commands.name(), HANDLER_NAME, new FlushHolder(this));
			this.channels.increment();
		}
	}

	/**
	 * Returns the clock of when the node at {@code remote} last sent anything to this
	 * registry, {@link System#nanoTime()}, on any connection.
	 */
	ReadClock lastRead(SocketAddress remote) {
		return this.reads.computeIfAbsent(remote, (address) -> new ReadClock());
	}

	/**
	 * When one node last sent anything: written on each read by its channels' event
	 * loops.
	 */
	static final class ReadClock {

		private volatile long readAt = System.nanoTime();

		long readAt() {
			return this.readAt;
		}

		void read() {
			this.readAt = System.nanoTime();
		}

	}

	/**
	 * Returns how many channels got the handler so far.
	 */
	public long channels() {
		return this.channels.sum();
	}

	/**
	 * Holds a node channel's flushes and sends what they held in one flush, as the class
	 * documentation says. Every method runs on the channel's event loop.
	 */
	static final class FlushHolder extends ChannelDuplexHandler {

		/** Held flushes after which the holder flushes at once, bounding held memory. */
		static final int MOST_HELD = 256;

		private final Runnable flushTask = this::flushHeld;

		private final WriteCoalescing owner;

		// set by handlerAdded, which Netty calls before any other event
		@SuppressWarnings("NullAway.Init")
		private ChannelHandlerContext context;

		private @Nullable ReadClock reads;

		FlushHolder(WriteCoalescing owner) {
			this.owner = owner;
		}

		private int held;

		private boolean queued;

		@Override
		public void handlerAdded(ChannelHandlerContext ctx) {
			this.context = ctx;
		}

		@Override
		public void flush(ChannelHandlerContext ctx) {
			if (++this.held >= MOST_HELD) {
				flushNow(ctx);
				return;
			}
			if (!this.queued) {
				try {
					// behind the write tasks queued already: they join this flush
					ctx.executor().execute(this.flushTask);
					this.queued = true;
				}
				catch (RejectedExecutionException ex) {
					flushNow(ctx); // the event loop is shutting down
				}
			}
		}

		private void flushHeld() {
			this.queued = false;
			if (this.held > 0) {
				flushNow(this.context);
			}
		}

		private void flushNow(ChannelHandlerContext ctx) {
			this.held = 0;
			ctx.flush();
		}

		private void flushIfHeld(ChannelHandlerContext ctx) {
			if (this.held > 0) {
				flushNow(ctx);
			}
		}

		@Override
		public void channelReadComplete(ChannelHandlerContext ctx) {
			ReadClock clock = this.reads;
			if (clock == null) {
				SocketAddress remote = ctx.channel().remoteAddress();
				if (remote != null) {
					clock = this.owner.lastRead(remote);
					this.reads = clock;
				}
			}
			if (clock != null) {
				clock.read();
			}
			// what reply callbacks sent during the read goes out now, before the task
			flushIfHeld(ctx);
			ctx.fireChannelReadComplete();
		}

		@Override
		public void channelWritabilityChanged(ChannelHandlerContext ctx) {
			if (!ctx.channel().isWritable()) {
				flushIfHeld(ctx);
			}
			ctx.fireChannelWritabilityChanged();
		}

		@Override
		public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
			flushIfHeld(ctx);
			ctx.fireExceptionCaught(cause);
		}

		@Override
		public void disconnect(ChannelHandlerContext ctx, ChannelPromise promise) {
			flushIfHeld(ctx);
			ctx.disconnect(promise);
		}

		@Override
		public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
			flushIfHeld(ctx);
			ctx.close(promise);
		}

		@Override
		public void handlerRemoved(ChannelHandlerContext ctx) {
			flushIfHeld(ctx);
		}

	}

}
