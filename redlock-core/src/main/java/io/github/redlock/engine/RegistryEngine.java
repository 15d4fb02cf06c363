package io.github.redlock.engine;

import java.util.List;
import java.util.stream.Stream;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.github.redlock.engine.kinds.LockKinds;
import io.github.redlock.engine.kinds.Observing;
import io.github.redlock.engine.lease.EngineContext;
import io.github.redlock.engine.lease.ExpiryChecks;
import io.github.redlock.engine.lease.RegistryEvents;
import io.github.redlock.engine.node.KeyLayout;
import io.github.redlock.engine.node.NodeAddress;
import io.github.redlock.engine.node.RestartGuard;
import io.github.redlock.engine.node.SilentNodes;
import io.github.redlock.engine.quorum.MonotonicClock;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.Validity;
import io.github.redlock.engine.waiting.ReleaseHints;
import io.github.redlock.engine.waiting.Waiting;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The parts of one registry, built and wired once, and their lifecycle: the façade,
 * {@link RedlockRegistry}, hands calls to them.
 * <p>
 * <b>Invariants.</b> Starting, stopping and closing run one at a time
 * ({@link #lifecycle}), never while a lock is held by this lock; a closed registry never
 * starts again. Stopping and closing end the pending acquisitions and the held leases
 * first ({@code LiveLeases}), then the release hints, then the connections, so that no
 * release is sent on a closed connection.
 *
 * @author redlock contributors
 */
final class RegistryEngine {

	private static final Log logger = LogFactory.getLog(RedlockRegistry.class);

	final NodeFleet fleet;

	final EngineContext engine;

	final Diagnostics diagnostics;

	/** The waiting lines of semaphores, with release hints of their own. */
	final Waiting permitLines;

	/** Wake-ups when other processes release, or {@code null} if turned off. */
	final @Nullable ReleaseHints hints;

	/** Every kind of lock, with the checks, the threads' holds and the observer. */
	final LockKinds kinds;

	/** Orders {@link #start()}, {@link #stop()} and {@link #close()}. */
	private final ReentrantLock lifecycle = new ReentrantLock();

	RegistryEngine(RedlockSettings settings, SilentNodes silentNodes, List<NodeAddress> addresses,
			List<List<NodeAddress>> clusters, Options options) {
		KeyLayout keys = new KeyLayout(settings.keyPrefix(), !clusters.isEmpty());
		Validity validity = new Validity(settings.driftFactor(), settings.nodeTimeout().toNanos());
		RestartGuard guard = settings.restartGuard() ? new RestartGuard(true,
				settings.maxTtl().toNanos() + validity.driftNanos(settings.maxTtl().toNanos()), keys.markerKey())
				: new RestartGuard(false, 0, keys.markerKey());
		this.fleet = new NodeFleet(addresses, clusters, keys, settings, options.resources(), guard,
				options.acceptEviction(), silentNodes, options.clientOptions(), options.coalesceWrites(),
				LockKinds.SCRIPTS);
		Stream.concat(addresses.stream(), clusters.stream().flatMap(List::stream))
			.filter((address) -> address.tlsWarning() != null)
			.forEach((address) -> logger.warn("Redlock node " + address + ": " + address.tlsWarning()
					+ ". Remove verifyPeer from its URI to verify the host name."));
		this.engine = new EngineContext(settings, this.fleet, keys, options.clock(), validity,
				new RegistryEvents(options.listeners()));
		RegistryEvents events = this.engine.events();
		if (events.any()) {
			this.fleet.onNodeChange(
					(node, state, detail) -> events.tell((listener) -> listener.nodeChanged(node, state, detail)));
		}
		this.diagnostics = new Diagnostics(this.fleet, keys);
		this.permitLines = new Waiting(settings, this.engine.scheduler(), this.engine.clock(),
				this.fleet::queueStampMillis);
		this.hints = options.releaseHints() ? new ReleaseHints(this.fleet, keys, this.engine.waiting(),
				this.permitLines, this.engine.scheduler(), this.engine.callbacks()) : null;
		this.engine.waiting().useHints((this.hints != null) ? this.hints.locks() : null);
		this.engine.waiting().hintNodes(this.fleet.size());
		this.permitLines.useHints((this.hints != null) ? this.hints.permits() : null);
		this.kinds = new LockKinds(this.engine, new Observing(options.observer(), this.engine.callbacks()),
				this.permitLines);
	}

	void start() {
		this.lifecycle.lock();
		try {
			this.engine.leases().checkOpen();
			if (this.engine.leases().isStopped()) {
				this.fleet.resume();
				if (this.hints != null) {
					this.hints.resume();
				}
				this.engine.leases().resume();
				logger.debug("Redlock registry starts again");
			}
		}
		finally {
			this.lifecycle.unlock();
		}
		this.fleet.start();
	}

	void stop() {
		this.lifecycle.lock();
		try {
			if (this.engine.leases().stop(this.fleet.callBoundNanos())) {
				if (this.hints != null) {
					this.hints.stop();
				}
				this.fleet.stop();
				logger.debug("Redlock registry stopped: connections to the nodes closed");
			}
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	boolean isRunning() {
		return !this.engine.leases().isStopped() && !this.engine.leases().isClosed();
	}

	void close() {
		this.lifecycle.lock();
		try {
			if (this.engine.leases().close(this.fleet.callBoundNanos())) {
				this.engine.scheduler().shutdownNow();
				this.engine.flushLossLog();
				if (this.hints != null) {
					this.hints.close();
				}
				this.fleet.close();
				this.engine.callbacks().shutdown();
			}
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	Waiting waiting() {
		return this.engine.waiting();
	}

	ExecutorService callbacks() {
		return this.engine.callbacks();
	}

	ExpiryChecks expiryChecks() {
		return this.engine.expiryChecks();
	}

	/**
	 * What the builder gives the engine beside the checked settings and node addresses.
	 */
	record Options(@Nullable ClientResources resources, boolean acceptEviction,
			Consumer<ClientOptions.Builder> clientOptions, boolean coalesceWrites, MonotonicClock clock,
			List<RegistryListener> listeners, @Nullable LockObserver observer, boolean releaseHints) {
	}

}
