package io.github.redlock.engine.quorum;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redlock.Durations;
import io.github.redlock.RedlockException;
import io.github.redlock.engine.node.QuorumMember;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The fleet's life: connecting every node once, stopping and resuming, and closing once
 * the deletions on their way have landed; {@link FleetAvailability} is told afresh at
 * each start.
 *
 * @author redlock contributors
 */
final class FleetConnections {

	// the fleet's log category, which operators know
	private static final Log logger = LogFactory.getLog(NodeFleet.class);

	private final List<QuorumMember> nodes;

	private final Quorum quorum;

	private final FleetResources fleetResources;

	private final FleetDeletions deletions;

	private final Duration connectTimeout;

	private final long callBoundNanos;

	private volatile @Nullable CompletableFuture<Void> connected;

	private volatile FleetAvailability availability;

	private final NodeStateChanges states;

	FleetConnections(List<QuorumMember> nodes, Quorum quorum, FleetResources fleetResources, FleetDeletions deletions,
			Duration connectTimeout, long callBoundNanos) {
		this.nodes = nodes;
		this.quorum = quorum;
		this.fleetResources = fleetResources;
		this.deletions = deletions;
		this.connectTimeout = connectTimeout;
		this.callBoundNanos = callBoundNanos;
		this.availability = new FleetAvailability(nodes, quorum);
		this.states = new NodeStateChanges(nodes);
	}

	NodeStateChanges states() {
		return this.states;
	}

	/**
	 * Tells the availability that a node's connection or trust may have changed.
	 */
	void changed() {
		FleetAvailability current = this.availability;
		if (current != null) {
			current.changed();
		}
		this.states.changed();
	}

	/**
	 * Connects to every node, once; later calls return the same future.
	 * @return a future that completes, never exceptionally, when every node answered or
	 * gave up
	 */
	CompletableFuture<Void> connect() {
		CompletableFuture<Void> ready = this.connected;
		if (ready == null) {
			synchronized (this) {
				ready = this.connected;
				if (ready == null) {
					FleetAvailability fleetAvailability = this.availability;
					ready = CompletableFuture
						.allOf(this.nodes.stream().map(QuorumMember::connect).toArray(CompletableFuture[]::new))
						.thenRun(() -> {
							try {
								fleetAvailability.start();
								this.states.start();
							}
							catch (RuntimeException ex) {
								// only logging: it must never keep attempts from running
							}
						});
					this.connected = ready;
				}
			}
		}
		return ready;
	}

	/**
	 * Runs {@code action} once every node has been tried: at once on the calling thread
	 * when they have been already.
	 */
	void whenConnected(Runnable action) {
		CompletableFuture<Void> ready = connect();
		if (ready.isDone()) {
			action.run();
		}
		else {
			ready.thenRun(action);
		}
	}

	/**
	 * Connects and waits at most the connect timeout. Whether a quorum can be reached is
	 * {@link FleetAvailability}'s to say, once every node has been tried.
	 */
	void start() {
		try {
			connect().get(this.connectTimeout.toNanos() + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedlockException("Interrupted while connecting to the redlock nodes", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.warn("Not every redlock node answered within " + Durations.format(this.connectTimeout));
		}
	}

	/**
	 * Closes every connection as {@link #close()} does, but keeps the clients and the
	 * Lettuce resources, so that {@link #resume()} and {@link #start()} connect again;
	 * waits a bounded time.
	 */
	void stop() {
		this.states.pause();
		CompletableFuture<?>[] stopping = this.nodes.stream()
			.map(QuorumMember::stopAsync)
			.toArray(CompletableFuture[]::new);
		try {
			CompletableFuture.allOf(stopping)
				.get(this.callBoundNanos + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.debug("Redlock connections did not close cleanly", ex);
		}
	}

	/**
	 * Lets the stopped fleet connect again: the next {@link #connect()} connects every
	 * node, and availability is told afresh once every node has been tried.
	 */
	void resume() {
		synchronized (this) {
			for (QuorumMember node : this.nodes) {
				node.reopen();
			}
			this.availability = new FleetAvailability(this.nodes, this.quorum);
			this.connected = null;
		}
	}

	/**
	 * Waits for the releases and withdrawals still on their way (a release returns once a
	 * quorum is free of the lock), then closes every connection, letting scripts already
	 * sent land first, and the Lettuce resources if the fleet created them; waits a
	 * bounded time.
	 */
	void close() {
		this.states.pause();
		try {
			if (!this.deletions.awaitDeletions(this.callBoundNanos)) {
				logger.debug("Redlock releases were still on their way to some node when the connections closed");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		CompletableFuture<?>[] closing = this.nodes.stream()
			.map(QuorumMember::closeAsync)
			.toArray(CompletableFuture[]::new);
		try {
			CompletableFuture.allOf(closing)
				.get(this.callBoundNanos + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS);
			if (this.fleetResources.shutDownOnClose()) {
				this.fleetResources.get().shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.debug("Redlock connections did not close cleanly", ex);
		}
	}

}
