/**
 * What is locked: the layer above {@link io.github.redlock.engine.lease}, just below the
 * façade ({@code RedlockRegistry}). Each kind of lock (the exclusive lock, read and write
 * locks, a semaphore's permits) is acquired here, with its scripts, and handed out as a
 * lease of the layer below.
 * <ul>
 * <li>{@code Acquisition}: one acquisition of the exclusive lock;
 * {@code LeaseAcquisition}: one of a read lock, the write lock or a permit, with
 * {@code ReadWriteLocks} and {@code PermitSemaphore} saying what their scripts are and
 * why they are safe;</li>
 * <li>{@code Observing}: the registry's {@code LockObserver} told of every kind and mode
 * alike;</li>
 * <li>{@code LockView} and {@code ReadWriteView}: the {@code java.util.concurrent.locks}
 * views; {@code HeldByThisThreadException}: a refusal that waiting could not help.</li>
 * </ul>
 * Depends on the layers below and the engine's public types only;
 * {@code EngineLayersTests} keeps it so.
 */
package io.github.redlock.engine.kinds;
