/**
 * A hold over time: the layer above {@link io.github.redlock.engine.waiting}. It knows a
 * held lock's value, fencing token and validity, how it is extended and released, and how
 * its end is told, whatever kind of lock it is.
 * <ul>
 * <li>{@code RedlockLease}: a held lock, one object over its superclasses
 * {@code LeaseState} (where it stands, and its end, told once by the winner of the
 * state's {@code compareAndSet}), {@code LeaseExtensions} (its validity and extensions,
 * and the end asked for) and {@code LeaseNotices} (its listeners, observer and the
 * registry's events); {@code LeaseOps}: how a kind's lease is extended and released and
 * whom its end concerns, declared by each kind ({@code ScriptedLeaseOps} for those of one
 * script each);</li>
 * <li>{@code LeaseWatchdog} and {@code ExpiryChecks}: auto-extension and the expiry check
 * of every lease, on one timer; {@code RenewalWindow}: the renewals on the nodes at once,
 * bounded, and fewer while they time out;</li>
 * <li>{@code LiveLeases}: the held leases and pending acquisitions, and whether the
 * registry is stopped or closed; {@code ThreadHolds} and {@code ReentrantLease}:
 * per-thread reentrancy of the blocking API;</li>
 * <li>{@code EngineContext}: what acquisitions and leases share, built once per registry;
 * {@code RegistryEvents}: the registry's listeners; {@code LossLog}: what lost leases
 * write to the log, a few lines a period however many are lost.</li>
 * </ul>
 * Depends on the waiting, quorum and node layers and the engine's public types only;
 * {@code EngineLayersTests} keeps it so.
 */
@NullMarked
package io.github.redlock.engine.lease;

import org.jspecify.annotations.NullMarked;
