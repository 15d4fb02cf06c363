package io.github.redlock.engine;

import java.util.concurrent.atomic.LongAdder;

import io.lettuce.core.event.DefaultEventPublisherOptions;
import io.lettuce.core.protocol.CommandHandler;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.flush.FlushConsolidationHandler;

/**
 * Makes the commands that concurrent callers send to one node go out in one write: one
 * system call on the client, one read on the server, instead of one each.
 * <p>
 * Lettuce writes and flushes every command on its own: from a caller's thread it hands
 * the channel's event loop one task per command, and each task writes the command and
 * flushes it. A Netty {@link FlushConsolidationHandler}, put into each node channel's
 * pipeline in front of Lettuce's {@link CommandHandler}, holds those flushes back:
 * <ul>
 * <li>outside a read, the first flush schedules one flush task on the event loop, behind
 * the write tasks already queued there, and later flushes join it. It runs as soon as the
 * event loop gets to it, never on a timer, so a lone command waits for nothing but that
 * task;</li>
 * <li>during a read (commands sent from a reply callback on the I/O thread: a NOSCRIPT
 * reload, a release chained on an acquisition's reply), the flush happens when the read
 * completes, which Netty always signals;</li>
 * <li>after 256 held flushes, and before the channel closes or disconnects, it flushes at
 * once, so nothing that was written is left unsent.</li>
 * </ul>
 * Each channel, the first and every one a reconnect makes, gets a handler of its own from
 * the {@link NettyCustomizer} of the resources the node clients use. When the registry is
 * given the application's resources, it uses a {@linkplain #sharing copy} that shares
 * their event loops, timer and executors and differs only in adding this handler.
 *
 * @author redlock contributors
 */
final class WriteCoalescing implements NettyCustomizer {

	/** The handler's name in a node channel's pipeline. */
	static final String HANDLER_NAME = "redlockWriteCoalescing";

	private final NettyCustomizer delegate;

	/** How many channels got the handler: a seam for tests of the reconnect path. */
	private final LongAdder channels = new LongAdder();

	private WriteCoalescing(NettyCustomizer delegate) {
		this.delegate = delegate;
	}

	/**
	 * Returns a customizer that adds the handler to every node channel.
	 */
	static WriteCoalescing create() {
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
	static ClientResources sharing(ClientResources resources) {
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
	static WriteCoalescing of(ClientResources resources) {
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
			channel.pipeline().addBefore(commands.name(), HANDLER_NAME, new FlushConsolidationHandler(256, true));
			this.channels.increment();
		}
	}

	/**
	 * Returns how many channels got the handler so far.
	 */
	long channels() {
		return this.channels.sum();
	}

}
