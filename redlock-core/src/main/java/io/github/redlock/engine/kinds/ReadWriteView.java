package io.github.redlock.engine.kinds;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * A {@link ReadWriteLock} over one key of a {@code RedlockRegistry}: two
 * {@link LockView}s, one acquiring read locks and one the write lock.
 *
 * @param readLock the read lock's view
 * @param writeLock the write lock's view
 * @author redlock contributors
 */
public record ReadWriteView(Lock readLock, Lock writeLock) implements ReadWriteLock {

}
