/**
 * One master: the engine's lowest layer. What a single Redis, Valkey or KeyDB server is
 * asked and what its answers mean, knowing nothing of quorums, waiting or leases.
 * <ul>
 * <li>{@code NodeClient}: one node as the layers above see it, made of
 * {@code NodeConnection} (connecting, a drop's grace, closing once what was sent has
 * landed: {@code InFlight}), {@code ScriptCalls} (script calls, which never fail their
 * future but answer a {@code NodeReply} within the node timeout; deletions wait longer in
 * Lettuce, {@code CommandTimeouts}, and are answered in time by {@code DeletionReply}),
 * {@code NodeHealth} (the health check), {@code LockClientOptions} and
 * {@code ScriptPreload};</li>
 * <li>{@code ConnectionGenerations}: the lock connection's generations, and the rule that
 * a reply counts only on the generation the trust vouched for;</li>
 * <li>{@code NodeTrust}: whether that node counts toward a quorum now, by the check it
 * runs (the restart guard, its {@code RestartGuard} settings, duplicate servers by
 * {@code ServerIdentities}, the memory policy), what the check found kept by
 * {@code RestartGuardState} (marker, floor, guard), {@code NodeExclusions} (permission,
 * duplicate, eviction) and {@code CheckRetries} (the back-off after a failed check);
 * {@code NodeSilence}: whether it went silent; {@code NodeErrors} and
 * {@code Permissions}: what a failure means, and which ACL rule is missing;</li>
 * <li>{@code Script}: the Lua scripts, their text read by {@code ScriptText} from the
 * {@code .lua} files of their families beside it; {@code ScriptArgs}: their arguments
 * written straight into the channel's buffer, {@code HeldReply}: the acquire script's
 * "held" reply; {@code KeyLayout}: where a lock key's state lives on a node;</li>
 * <li>{@code NodeAddress}: a node's URI and a display without secrets;
 * {@code WriteCoalescing}: concurrent commands to one node go out in one write.</li>
 * </ul>
 * Depends on nothing of the engine but the public types of
 * {@link io.github.redlock.engine} ({@code NodeStatus}, {@code InvalidOptionException});
 * {@code EngineLayersTests} keeps it so.
 */
@NullMarked
package io.github.redlock.engine.node;

import org.jspecify.annotations.NullMarked;
