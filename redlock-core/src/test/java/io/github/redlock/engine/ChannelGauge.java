package io.github.redlock.engine;

import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.protocol.CommandHandler;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;

/**
 * Reads what a Lettuce client holds for one remote port: the commands in its command
 * stack (sent and not yet answered, timed out or not: Lettuce keeps a timed-out command
 * there until its reply comes or the connection closes) and the bytes in Netty's outbound
 * buffer (written and not yet taken by the kernel). Give a registry {@link #resources()}
 * and read {@link #pending(int)} for the port of a node or of the proxy in front of it;
 * every connection to it counts (lock and publish/subscribe).
 */
final class ChannelGauge implements NettyCustomizer, AutoCloseable {

	private final Set<Channel> channels = ConcurrentHashMap.newKeySet();

	private final ClientResources resources = ClientResources.builder().nettyCustomizer(this).build();

	@Override
	public void afterChannelInitialized(Channel channel) {
		this.channels.add(channel);
		channel.closeFuture().addListener((closed) -> this.channels.remove(channel));
	}

	/**
	 * Returns resources to give the registry under test; closed with this gauge.
	 */
	ClientResources resources() {
		return this.resources;
	}

	/**
	 * Returns what the client holds for the given remote port, read on each channel's
	 * event loop.
	 */
	Pending pending(int port) {
		int commands = 0;
		long bytes = 0;
		int connections = 0;
		for (Channel channel : this.channels) {
			if (!(channel.remoteAddress() instanceof InetSocketAddress remote) || remote.getPort() != port) {
				continue;
			}
			try {
				Pending one = channel.eventLoop().submit(() -> read(channel)).get(10, TimeUnit.SECONDS);
				commands += one.commands();
				bytes += one.outboundBytes();
				connections++;
			}
			catch (Exception ex) {
				// closed meanwhile: holds nothing
			}
		}
		return new Pending(commands, bytes, connections);
	}

	private static Pending read(Channel channel) {
		CommandHandler handler = channel.pipeline().get(CommandHandler.class);
		ChannelOutboundBuffer outbound = channel.unsafe().outboundBuffer();
		return new Pending((handler != null) ? handler.getStack().size() : 0,
				(outbound != null) ? outbound.totalPendingWriteBytes() : 0, 1);
	}

	@Override
	public void close() {
		this.resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
	}

	/**
	 * What a client holds for one remote port.
	 *
	 * @param commands commands sent and not yet answered (Lettuce's command stacks)
	 * @param outboundBytes bytes written and not yet taken by the kernel
	 * @param connections the open connections counted
	 */
	record Pending(int commands, long outboundBytes, int connections) {

	}

}
