/**
 * When to try again: the layer above {@link io.github.redlock.engine.quorum}. It knows
 * who waits for which key and when each waiter's next attempt goes, not what the attempt
 * asks of the nodes.
 * <ul>
 * <li>{@code Waiting}: the façade, one line per key of the waiters of this registry, and
 * what waiting promises; its parts: {@code Line} (a key's line and this registry's leases
 * on it), {@code LineHold} (one lease's count in its line, which the lease ends once),
 * {@code Place} (a waiter's phases), {@code HintGathering} (the release hints a line
 * heard), {@code LineTurn} and {@code Turns} (the turns that processes take on a key
 * through its queue on the nodes), {@code RetryDelays}, and {@code Trampoline} (attempts
 * that never nest);</li>
 * <li>{@code ReleaseHints}: the wake-ups across processes, on each node's channel of the
 * key, subscribed to only while a waiter of this registry waits for another process;
 * {@code NodeHintConnection}: one node's publish/subscribe connection and the channels
 * asked of it.</li>
 * </ul>
 * Depends on the quorum and node layers and the engine's public types only;
 * {@code EngineLayersTests} keeps it so.
 */
@NullMarked
package io.github.redlock.engine.waiting;

import org.jspecify.annotations.NullMarked;
