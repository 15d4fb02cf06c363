/**
 * The quorum engine: {@link io.github.redlock.engine.RedlockRegistry} over Lettuce, its
 * Lua scripts, fencing tokens and the lease watchdog.
 *
 * <h2>Map of the engine</h2> Layers, each depending only on those below it
 * ({@code EngineLayersTests} fails otherwise), bottom up:
 * <ul>
 * <li>{@link io.github.redlock.engine.node}, one master: {@code NodeClient} (one node,
 * made of {@code NodeConnection}, {@code ScriptCalls}, whose calls never fail but answer
 * a {@code NodeReply}, and {@code NodeHealth}), {@code ConnectionGenerations} (a reply
 * counts only on the connection generation the trust vouched for), {@code NodeTrust} and
 * {@code RestartDecision} (whether the node counts toward a quorum now: the restart guard
 * and the fencing floor), {@code NodeSilence}, {@code NodeErrors}, {@code Script} (the
 * Lua, in {@code .lua} resources beside it), {@code KeyLayout} (the keys on the nodes),
 * {@code LockValues} (the lock value's layout), {@code WriteCoalescing};</li>
 * <li>{@link io.github.redlock.engine.quorum}, N masters as one: {@code NodeFleet} (the
 * fleet: connecting, a quorum call, asking each node under one bound, releases that reach
 * every node), {@code Quorum} (the majority, and the rule that a lock counts only when a
 * majority agreed with time left), {@code QuorumCall}, {@code Validity},
 * {@code FleetAvailability}, {@code NodeStateChanges} (each node's {@code NodeState},
 * told once per change);</li>
 * <li>{@link io.github.redlock.engine.waiting}, when to try again: {@code Waiting} (a
 * line per key, retries, hints, the turns processes take) and {@code ReleaseHints}
 * (wake-ups across processes);</li>
 * <li>{@link io.github.redlock.engine.lease}, a hold over time: {@code RedlockLease} (a
 * held lock: value, token, validity, extension, release, its end told once),
 * {@code LeaseWatchdog} and {@code ExpiryChecks} (auto-extension and expiry on one
 * timer), {@code LiveLeases}, {@code ThreadHolds} and {@code ReentrantLease},
 * {@code EngineContext} (what acquisitions and leases share);</li>
 * <li>{@link io.github.redlock.engine.kinds}, what is locked: {@code AcquisitionLoop}
 * (one acquisition of any kind, with {@code AttemptOutcomes} and {@code FencingRound}),
 * its kinds {@code ExclusiveAcquisition}, {@code ReadWriteLocks} and
 * {@code PermitSemaphore}, {@code Observing} (the {@code LockObserver}),
 * {@code LockView};</li>
 * <li>this package, the façade and the public types: {@code RedlockRegistry} (checks
 * arguments and hands each call on; its {@code Builder} collects options, which
 * {@code RegistryOptions} keeps, checks and builds the {@code RegistryEngine} from),
 * {@code RedlockSettings}, {@code Diagnostics} ({@code inspect} and {@code checkNodes}),
 * and the types other modules use ({@code LockObserver}, {@code RegistryListener},
 * {@code NodeStatus}, {@code NodeState}, {@code InvalidOptionException}).</li>
 * </ul>
 *
 * <h2>How an acquisition flows</h2> {@code RedlockRegistry.acquire} checks the key, TTL
 * and wait time, and returns the current thread's lease again if {@code ThreadHolds} says
 * it holds the key. Otherwise the kind's {@code AcquisitionLoop} waits for
 * {@code NodeFleet} to have connected, then each attempt makes a fresh lock value and
 * sends the acquire script to every node through a {@code QuorumCall}; each
 * {@code NodeClient} refuses at once while {@code NodeTrust} keeps it out. With a
 * majority in agreement, the highest fencing counter is the token; if fewer than a
 * majority reported it, a second quorum call raises the others. The lock counts if
 * {@code Validity} says time is left; then a {@code RedlockLease} is recorded in
 * {@code LiveLeases}, listeners are told, and the caller gets it (the blocking API
 * wrapped in a {@code ReentrantLease}). A failed attempt releases on every node and asks
 * {@code Waiting} for the next attempt, until the wait time is spent and a
 * {@code LockAcquisitionException} says what each node answered.
 */
@NullMarked
package io.github.redlock.engine;

import org.jspecify.annotations.NullMarked;
