/**
 * What is locked: the layer above {@link io.github.redlock.engine.lease}, just below the
 * façade ({@code RedlockRegistry}). Each kind of lock (the exclusive lock, read and write
 * locks, a semaphore's permits) is acquired here, with its scripts, and handed out as a
 * lease of the layer below.
 * <ul>
 * <li>{@code AcquisitionLoop}: one acquisition of any kind, judged by
 * {@code AttemptOutcomes}, its token from {@code FencingRound}, awaited by the blocking
 * API through {@code AcquisitionAwait}; the kinds, each with its scripts, its
 * {@code LeaseOps} and what sets it apart: {@code ExclusiveAcquisition} (the exclusive
 * lock), {@code ReadWriteLocks} (read and write locks) and {@code PermitSemaphore} (a
 * semaphore's permits), saying why they are safe;</li>
 * <li>{@code Observing}: the registry's {@code LockObserver} told of every kind and mode
 * alike;</li>
 * <li>{@code LockView} and {@code ReadWriteView}: the {@code java.util.concurrent.locks}
 * views; {@code HeldByThisThreadException}: a refusal that waiting could not help.</li>
 * </ul>
 * Depends on the layers below and the engine's public types only;
 * {@code EngineLayersTests} keeps it so.
 */
@NullMarked
package io.github.redlock.engine.kinds;

import org.jspecify.annotations.NullMarked;
