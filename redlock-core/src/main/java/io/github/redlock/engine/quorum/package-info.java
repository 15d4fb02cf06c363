/**
 * N masters as one: the layer above {@link io.github.redlock.engine.node}. It knows what
 * a quorum is and how long an answer is worth, not what is locked or who waits.
 * <ul>
 * <li>{@code NodeFleet}: the N node clients as the layers above see them, made of
 * {@code FleetResources} (the shared Lettuce resources), {@code FleetConnections}
 * (connecting, stopping, resuming, closing), {@code EveryNode} (asking each node for
 * every answer, under one bound) and {@code FleetDeletions} with {@code Deletion}
 * (releases and deletions that reach every node);</li>
 * <li>{@code Quorum}: the majority, and the rule that a lock counts only when a majority
 * agreed with time left;</li>
 * <li>{@code QuorumCall}: one script sent to every node at once, decided as soon as a
 * majority agreed or no longer can;</li>
 * <li>{@code Validity} and {@code MonotonicClock}: what is left of a TTL after the time
 * an answer took and the clock drift allowed;</li>
 * <li>{@code FleetAvailability}: what the fleet as a whole can do, said once per
 * change.</li>
 * </ul>
 * Depends on the node layer and the engine's public types only; {@code EngineLayersTests}
 * keeps it so.
 */
@NullMarked
package io.github.redlock.engine.quorum;

import org.jspecify.annotations.NullMarked;
