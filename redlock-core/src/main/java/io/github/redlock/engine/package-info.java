/**
 * The quorum engine: {@link io.github.redlock.engine.RedlockRegistry} over Lettuce, its
 * Lua scripts, fencing tokens and the lease watchdog.
 *
 * <h2>Map of the engine</h2>
 * <ul>
 * <li>{@code RedlockRegistry}: the public façade. It checks arguments and hands each call
 * to the parts below; its nested {@code Builder} collects options.</li>
 * <li>{@code RedlockSettings}: the validated tuning (its constructor refuses what cannot
 * work); {@code NodeAddress}: a node's URI, its checks, and a display without
 * secrets.</li>
 * <li>In {@link io.github.redlock.engine.quorum}, the layer above (N masters as one):
 * {@code NodeFleet}: the N node clients, the quorum, connecting, and the two ways of
 * asking the nodes: a quorum call ({@code QuorumCall}, decided as soon as a majority
 * agreed or no longer can, its nodes' replies reaching it by callback) and asking each
 * node for every answer (inspection, node checks), under one bound; a release goes to
 * every node and returns once a quorum is free of the lock, the rest landing in the
 * background (closing waits for them).</li>
 * <li>In {@link io.github.redlock.engine.node}, the lowest layer (one master):
 * {@code NodeClient}: one node's connection and script calls, which never fail but answer
 * a {@code NodeReply}; {@code NodeTrust}: whether that node counts toward a quorum now
 * (the restart guard); {@code NodeErrors}: what a failed call means; {@code Script}: the
 * Lua scripts; {@code WriteCoalescing}: concurrent commands to one node go out in one
 * write.</li>
 * <li>{@code EngineContext}: what acquisitions and leases work with, built once per
 * registry: settings, fleet, {@code KeyLayout} (the keys on the nodes), clock and
 * {@code Validity}, the one scheduler thread, {@code LockValues}, {@code RegistryEvents}
 * (listeners), {@code LiveLeases} (held leases, and whether the registry is closed) and
 * counters.</li>
 * <li>{@code Acquisition}: one call to acquire, with its attempts and fencing round;
 * {@code Waiting}: when an attempt that failed is tried again (the place for wait queues
 * and wake-ups).</li>
 * <li>{@code RedlockLease}: a held lock (value, token, validity, extension, release, the
 * lost signal); {@code LeaseWatchdog}: its auto-extension and expiry check;
 * {@code ExpiryChecks}: the registry's one timer, set for the earliest renewal or expiry
 * check of any lease, that runs them.</li>
 * <li>{@code ThreadHolds} and {@code ReentrantLease}: reentrancy of the blocking API;
 * {@code LockView}: the {@code java.util.concurrent.locks.Lock} view.</li>
 * <li>{@code Diagnostics}: {@code inspect(key)} and {@code checkNodes()}.</li>
 * <li>{@code LockObserver}: the instrumentation SPI (tracing); {@code RedlockRegistry}
 * tells it of each acquisition on the caller's thread, and {@code RedlockLease} of the
 * end of each hold. Absent, it costs a null check.</li>
 * </ul>
 *
 * <h2>How an acquisition flows</h2> {@code RedlockRegistry.acquire} checks the key, TTL
 * and wait time, and returns the current thread's lease again if {@code ThreadHolds} says
 * it holds the key. Otherwise {@code Acquisition.start} waits for {@code NodeFleet} to
 * have connected, then each attempt makes a fresh lock value and sends the acquire script
 * to every node through a {@code QuorumCall}; each {@code NodeClient} refuses at once
 * while {@code NodeTrust} keeps it out. With a majority in agreement, the highest fencing
 * counter is the token; if fewer than a majority reported it, a second quorum call raises
 * the others. The lock counts if {@code Validity} says time is left; then a
 * {@code RedlockLease} is recorded in {@code LiveLeases}, listeners are told, and the
 * caller gets it (the blocking API wrapped in a {@code ReentrantLease}). A failed attempt
 * releases on every node and asks {@code Waiting} for the next attempt, until the wait
 * time is spent and a {@code LockAcquisitionException} says what each node answered.
 */
package io.github.redlock.engine;
