package io.github.redlock.embedded;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

/**
 * A fleet of independent {@code redis-server} nodes on loopback ports: the quorum a lock
 * registry runs against in tests and in development.
 *
 * @author redlock contributors
 */
public final class RedisFleet implements AutoCloseable {

	private final List<RedisNode> nodes;

	private final List<FleetProxy> proxies = new CopyOnWriteArrayList<>();

	private final @Nullable TestCertificates certificates;

	private RedisFleet(List<RedisNode> nodes, @Nullable TestCertificates certificates) {
		this.nodes = Collections.unmodifiableList(nodes);
		this.certificates = certificates;
	}

	/**
	 * Starts {@code size} nodes, in parallel.
	 * @param size how many nodes
	 * @return the running fleet
	 */
	public static RedisFleet start(int size) {
		return start(size, null);
	}

	/**
	 * Starts {@code size} nodes that listen only on TLS, in parallel, each presenting the
	 * {@link TestCertificates#serverCertificate() server certificate for localhost}.
	 * @param size how many nodes
	 * @param certificates the certificates they use, to be closed only after the fleet
	 * @param requireClientCertificate whether they refuse clients that do not present a
	 * certificate signed by the CA
	 * @return the running fleet
	 * @throws IllegalStateException if the {@code redis-server} binary was built without
	 * TLS
	 * @see RedisNode#startTls(String, TestCertificates, boolean)
	 */
	public static RedisFleet startTls(int size, TestCertificates certificates, boolean requireClientCertificate) {
		return start(size,
				new RedisNode.Tls(certificates, requireClientCertificate, RedisNode.ServerCertificate.LOCALHOST));
	}

	/**
	 * Starts {@code size} nodes with a fake clock each, in parallel: each node's wall
	 * clock can be moved while it runs
	 * ({@link RedisNode#clockOffset(java.time.Duration)}). They run the binary
	 * {@link FakeClocks#binary()} names, which may be the one inside the embedded-redis
	 * jar rather than the usual one.
	 * @param size how many nodes
	 * @return the running fleet
	 * @throws IllegalStateException if nodes cannot run with a fake clock here
	 * ({@link FakeClocks#unavailableReason()})
	 */
	public static RedisFleet startWithFakeClocks(int size) {
		return startWithFakeClocks(size, size);
	}

	/**
	 * Starts {@code size} nodes, in parallel, the first {@code withFakeClock} of them
	 * with a fake clock ({@link #startWithFakeClocks(int)}); the others run the usual
	 * binary with the machine's clock, so that a fleet whose clocks are moved still has
	 * nodes of the usual binary when that one does not start under libfaketime.
	 * @param size how many nodes
	 * @param withFakeClock how many of them, from the first, have a fake clock
	 * @return the running fleet
	 * @throws IllegalStateException if nodes cannot run with a fake clock here
	 * ({@link FakeClocks#unavailableReason()})
	 */
	public static RedisFleet startWithFakeClocks(int size, int withFakeClock) {
		if (withFakeClock < 0 || withFakeClock > size) {
			throw new IllegalArgumentException(
					"Between 0 and " + size + " nodes may have a fake clock, not " + withFakeClock);
		}
		return start(size, null, (withFakeClock > 0) ? FakeClocks.binary() : null, withFakeClock);
	}

	private static RedisFleet start(int size, RedisNode.@Nullable Tls tls) {
		return start(size, tls, null, 0);
	}

	private static RedisFleet start(int size, RedisNode.@Nullable Tls tls, @Nullable RedisServerBinary fakeClockBinary,
			int withFakeClock) {
		if (size < 1) {
			throw new IllegalArgumentException("A fleet needs at least one node, not " + size);
		}
		RedisServerBinary binary = RedisServerBinary.get();
		if (tls != null) {
			binary.requireTls();
		}
		List<RedisNode> nodes = new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			boolean fakeClock = i < withFakeClock;
			nodes.add(new RedisNode(
					"node" + i, fakeClock
							? Objects.requireNonNull(fakeClockBinary, "withFakeClock > 0 without its binary") : binary,
					tls, (directory) -> List.of(), RedisNode::freePort, fakeClock));
		}
		RedisFleet fleet = new RedisFleet(nodes, (tls != null) ? tls.certificates() : null);
		try {
			CompletableFuture
				.allOf(nodes.stream()
					.map((node) -> CompletableFuture.runAsync(node::start))
					.toArray(CompletableFuture[]::new))
				.join();
		}
		catch (RuntimeException ex) {
			fleet.close();
			throw ex;
		}
		return fleet;
	}

	/**
	 * Returns the nodes, in order.
	 * @return the nodes
	 */
	public List<RedisNode> nodes() {
		return this.nodes;
	}

	/**
	 * Returns one node.
	 * @param index its index, from 0
	 * @return the node
	 */
	public RedisNode node(int index) {
		return this.nodes.get(index);
	}

	/**
	 * Returns how many nodes the fleet has.
	 * @return the size
	 */
	public int size() {
		return this.nodes.size();
	}

	/**
	 * Returns the certificates of a fleet
	 * {@link #startTls(int, TestCertificates, boolean) started with TLS}: the CA that
	 * clients trust and the client certificate they present.
	 * @return the certificates, or empty for plain nodes
	 */
	public Optional<TestCertificates> certificates() {
		return Optional.ofNullable(this.certificates);
	}

	/**
	 * Returns the nodes' URIs, such as {@code redis://127.0.0.1:6379} (or
	 * {@code rediss://127.0.0.1:6379} for TLS nodes), in order.
	 * @return the URIs
	 */
	public List<String> uris() {
		return this.nodes.stream().map(RedisNode::uri).toList();
	}

	/**
	 * Starts a {@link FleetProxy}: a proxy in front of each node, for one client whose
	 * links to the nodes a test cuts or delays. The fleet heals it in {@link #heal()} and
	 * {@link #undoFaults()}, and stops it when it closes.
	 * @param client a name for the client, for threads and messages
	 * @return the client's view of the fleet
	 */
	public FleetProxy proxy(String client) {
		FleetProxy proxy = new FleetProxy(this, client);
		this.proxies.add(proxy);
		return proxy;
	}

	/**
	 * Undoes every fault: heals every {@link #proxy(String) proxy}, thaws paused nodes,
	 * ends slowdowns and starts killed nodes again (empty), then deletes every key on
	 * every node.
	 */
	public void heal() {
		undoFaults();
		flushAll();
	}

	/**
	 * Undoes every fault without touching data: heals every {@link #proxy(String) proxy},
	 * thaws paused nodes, ends slowdowns, starts killed nodes again and sets moved clocks
	 * back to the machine's.
	 */
	public void undoFaults() {
		this.proxies.forEach(FleetProxy::heal);
		for (RedisNode node : this.nodes) {
			node.unslow();
			node.resume();
			node.start();
			if (node.hasFakeClock()) {
				node.clockOffset(Duration.ZERO);
			}
		}
	}

	/**
	 * Deletes every key on every running node.
	 */
	public void flushAll() {
		for (RedisNode node : this.nodes) {
			if (node.isRunning() && !node.isPaused()) {
				node.call("FLUSHALL");
			}
		}
	}

	/**
	 * Leaves stopping the nodes at JVM exit to the fleet's owner, which closes the fleet
	 * in a shutdown hook of its own (see {@link RedisNode#leaveToOwnerAtExit()}).
	 * @return this fleet
	 */
	public RedisFleet leaveToOwnerAtExit() {
		this.nodes.forEach(RedisNode::leaveToOwnerAtExit);
		return this;
	}

	/**
	 * Stops every proxy and every node, and deletes the nodes' data.
	 */
	@Override
	public void close() {
		this.proxies.forEach(FleetProxy::close);
		RuntimeException failure = null;
		for (RedisNode node : this.nodes) {
			try {
				node.close();
			}
			catch (RuntimeException ex) {
				failure = (failure != null) ? failure : ex;
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	@Override
	public String toString() {
		return "RedisFleet" + this.nodes;
	}

}
