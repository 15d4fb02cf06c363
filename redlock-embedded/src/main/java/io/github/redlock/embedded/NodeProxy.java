package io.github.redlock.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * A TCP proxy on its own loopback port in front of one {@link RedisNode}: the network
 * link between one client and one node, with the faults of a network rather than of a
 * server. Give a client the proxy's {@link #uri()} in place of the node's, then
 * {@link #cut() cut} the link (both ways, or {@link #cut(Direction) one way}),
 * {@link #delay(Direction, Duration) delay} one direction, {@link #heal() heal} it, or
 * {@link #dropConnections() drop} its connections. Another client with a proxy of its own
 * still reaches the node: that is a partition.
 * <p>
 * A cut holds what is sent and delivers it, in order, when it heals, as TCP retransmits
 * across a short partition; a connection closed on one side during a cut is seen closed
 * on the other only once the cut heals. A delay holds each chunk for the given time from
 * when the proxy read it. A connection opened during a cut is accepted but carries
 * nothing until the cut heals. Killing or restarting the node closes the connections
 * through the proxy, as it would direct ones; the proxy keeps listening.
 *
 * @author redlock contributors
 */
public final class NodeProxy implements AutoCloseable {

	/**
	 * Which way bytes travel on a link.
	 */
	public enum Direction {

		/** From the client to the node: commands. */
		TO_NODE,

		/** From the node to the client: replies. */
		TO_CLIENT

	}

	private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

	private final RedisNode node;

	private final String name;

	private final ServerSocket server;

	private final Set<Link> links = ConcurrentHashMap.newKeySet();

	// guarded by this
	private final Map<Direction, Boolean> cut = new EnumMap<>(Direction.class);

	// guarded by this
	private final Map<Direction, Long> delayNanos = new EnumMap<>(Direction.class);

	// guarded by this
	private boolean closed;

	private NodeProxy(RedisNode node, String name) throws IOException {
		this.node = node;
		this.name = name;
		for (Direction direction : Direction.values()) {
			this.cut.put(direction, false);
			this.delayNanos.put(direction, 0L);
		}
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "redlock-proxy-" + name);
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Starts a proxy in front of a node, on a free loopback port. The node need not be
	 * running yet: each connection through the proxy connects to the node's port when it
	 * is opened.
	 * @param node the node behind the proxy
	 * @return the listening proxy
	 */
	public static NodeProxy start(RedisNode node) {
		return start(node, node.name() + "-proxy");
	}

	/**
	 * Starts a proxy in front of a node, on a free loopback port.
	 * @param node the node behind the proxy
	 * @param name a name for threads and messages, such as {@code "client-a-node0"}
	 * @return the listening proxy
	 */
	public static NodeProxy start(RedisNode node, String name) {
		try {
			return new NodeProxy(node, name);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start proxy " + name, ex);
		}
	}

	/**
	 * Cuts the link both ways, as a partition does, until {@link #heal()}.
	 */
	public void cut() {
		cut(Direction.TO_NODE);
		cut(Direction.TO_CLIENT);
	}

	/**
	 * Cuts one direction of the link until {@link #heal()}: with {@code TO_CLIENT}, the
	 * node still receives and runs commands, but the client sees no replies.
	 * @param direction the direction to cut
	 */
	public synchronized void cut(Direction direction) {
		this.cut.put(direction, true);
		notifyAll();
	}

	/**
	 * Delays every chunk travelling one way by {@code delay} until {@link #heal()} or the
	 * next call; {@link Duration#ZERO} ends the delay.
	 * @param direction the direction to delay
	 * @param delay how long each chunk is held
	 */
	public synchronized void delay(Direction direction, Duration delay) {
		if (delay.isNegative()) {
			throw new IllegalArgumentException("delay must not be negative, was " + delay);
		}
		this.delayNanos.put(direction, delay.toNanos());
		notifyAll();
	}

	/**
	 * Ends every cut and delay; what was held is delivered at once, in order.
	 */
	public synchronized void heal() {
		for (Direction direction : Direction.values()) {
			this.cut.put(direction, false);
			this.delayNanos.put(direction, 0L);
		}
		notifyAll();
	}

	/**
	 * Returns whether one direction is cut.
	 * @param direction the direction
	 * @return whether it is cut
	 */
	@SuppressWarnings("NullAway") // the constructor puts every direction in the map
	public synchronized boolean isCut(Direction direction) {
		return this.cut.get(direction);
	}

	/**
	 * Closes every connection through the proxy at once, whatever it still holds, as a
	 * connection reset would. The proxy keeps accepting new ones.
	 */
	public void dropConnections() {
		for (Link link : this.links) {
			link.close();
		}
	}

	/**
	 * Returns how many connections are open through the proxy.
	 * @return the number of open connections
	 */
	public int connections() {
		return this.links.size();
	}

	/**
	 * Returns the node behind the proxy.
	 * @return the node
	 */
	public RedisNode node() {
		return this.node;
	}

	/**
	 * Returns the loopback port the proxy listens on.
	 * @return the port
	 */
	public int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Returns the URI to give a client in place of the node's, such as
	 * {@code redis://127.0.0.1:40123}, or {@code rediss://127.0.0.1:40123} in front of a
	 * TLS node (the proxy forwards the TLS bytes as they are).
	 * @return the URI
	 */
	public String uri() {
		return (this.node.isTls() ? "rediss" : "redis") + "://127.0.0.1:" + port();
	}

	/**
	 * Stops listening and closes every connection through the proxy.
	 */
	@Override
	public void close() {
		synchronized (this) {
			this.closed = true;
			notifyAll();
		}
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		dropConnections();
	}

	@Override
	public String toString() {
		return "NodeProxy[" + this.name + " " + uri() + " -> " + this.node.name() + "]";
	}

	private void accept() {
		while (!this.server.isClosed()) {
			Socket client;
			try {
				client = this.server.accept();
			}
			catch (IOException ex) {
				return;
			}
			Socket upstream = new Socket();
			try {
				client.setTcpNoDelay(true);
				upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.node.port()),
						(int) CONNECT_TIMEOUT.toMillis());
				upstream.setTcpNoDelay(true);
			}
			catch (IOException | RuntimeException ex) {
				// the node is down: the client sees its connection closed
				closeQuietly(client);
				closeQuietly(upstream);
				continue;
			}
			Link link = new Link(client, upstream);
			this.links.add(link);
			if (isClosed()) {
				link.close();
				return;
			}
			link.start();
		}
	}

	private synchronized boolean isClosed() {
		return this.closed;
	}

	/**
	 * Waits until a chunk read at {@code readAt} may go {@code direction}: not cut, and
	 * its delay spent. Returns {@code false} if the proxy closed meanwhile.
	 */
	@SuppressWarnings("NullAway") // the constructor puts every direction in the maps
	private synchronized boolean awaitPassage(Link link, Direction direction, long readAt) throws InterruptedException {
		while (!this.closed && !link.closed) {
			if (!this.cut.get(direction)) {
				long wait = readAt + this.delayNanos.get(direction) - System.nanoTime();
				if (wait <= 0) {
					return true;
				}
				wait(Math.max(1, wait / 1_000_000));
			}
			else {
				wait();
			}
		}
		return false;
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

	/**
	 * One connection through the proxy: a client socket, a node socket, and for each
	 * direction a reader that queues what arrives and a writer that delivers it when the
	 * link lets it through.
	 */
	private final class Link {

		private final Socket client;

		private final Socket upstream;

		private final ArrayDeque<Chunk> toNode = new ArrayDeque<>();

		private final ArrayDeque<Chunk> toClient = new ArrayDeque<>();

		private volatile boolean closed;

		Link(Socket client, Socket upstream) {
			this.client = client;
			this.upstream = upstream;
		}

		void start() {
			pump(Direction.TO_NODE, this.client, this.upstream, this.toNode);
			pump(Direction.TO_CLIENT, this.upstream, this.client, this.toClient);
		}

		// a chunk of null bytes marks the end of the stream
		private void pump(Direction direction, Socket from, Socket to, ArrayDeque<Chunk> queue) {
			String prefix = "redlock-proxy-" + NodeProxy.this.name + "-" + direction.name().toLowerCase();
			Thread reader = new Thread(() -> {
				byte[] buffer = new byte[16 * 1024];
				try {
					InputStream in = from.getInputStream();
					int read;
					while ((read = in.read(buffer)) >= 0) {
						offer(queue, new Chunk(Arrays.copyOf(buffer, read), System.nanoTime()));
					}
				}
				catch (IOException ex) {
					// closed or reset: the end of the stream, as far as the other side
					// learns
				}
				offer(queue, new Chunk(null, System.nanoTime()));
			}, prefix + "-read");
			Thread writer = new Thread(() -> {
				try {
					OutputStream out = to.getOutputStream();
					while (true) {
						Chunk chunk;
						synchronized (queue) {
							while (queue.isEmpty() && !this.closed) {
								queue.wait();
							}
							if (this.closed) {
								return;
							}
							chunk = queue.poll();
						}
						if (!awaitPassage(this, direction, chunk.readAt) || chunk.bytes == null) {
							break;
						}
						out.write(chunk.bytes);
						out.flush();
					}
				}
				catch (IOException | InterruptedException ex) {
					// the link is closing
				}
				close();
			}, prefix + "-write");
			reader.setDaemon(true);
			writer.setDaemon(true);
			reader.start();
			writer.start();
		}

		private void offer(ArrayDeque<Chunk> queue, Chunk chunk) {
			synchronized (queue) {
				queue.add(chunk);
				queue.notifyAll();
			}
		}

		void close() {
			this.closed = true;
			closeQuietly(this.client);
			closeQuietly(this.upstream);
			NodeProxy.this.links.remove(this);
			for (ArrayDeque<Chunk> queue : List.of(this.toNode, this.toClient)) {
				synchronized (queue) {
					queue.notifyAll();
				}
			}
			synchronized (NodeProxy.this) {
				NodeProxy.this.notifyAll();
			}
		}

	}

	private record Chunk(byte @Nullable [] bytes, long readAt) {

	}

}
