/**
 * N masters as one: the layer above {@link io.github.redlock.engine.node}. It knows what
 * a quorum is and how long an answer is worth, not what is locked or who waits.
 * <ul>
 * <li>{@code NodeFleet}: the N node clients on shared Lettuce resources, the quorum
 * ({@code N/2+1}), connecting, and the two ways of asking the nodes: a quorum call and
 * asking each node for every answer, under one bound; releases and deletions that reach
 * every node;</li>
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
package io.github.redlock.engine.quorum;
