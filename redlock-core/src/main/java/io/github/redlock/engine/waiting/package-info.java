/**
 * When to try again: the layer above {@link io.github.redlock.engine.quorum}. It knows
 * who waits for which key and when each waiter's next attempt goes, not what the attempt
 * asks of the nodes.
 * <ul>
 * <li>{@code Waiting}: one line per key of the waiters of this registry, the retry
 * delays, the hints that a holder's release gathers, and the turns that processes take on
 * a key through its queue on the nodes;</li>
 * <li>{@code ReleaseHints}: the wake-ups across processes, on each node's channel of the
 * key, subscribed to only while a waiter of this registry waits for another process.</li>
 * </ul>
 * Depends on the quorum and node layers and the engine's public types only;
 * {@code EngineLayersTests} keeps it so.
 */
package io.github.redlock.engine.waiting;
