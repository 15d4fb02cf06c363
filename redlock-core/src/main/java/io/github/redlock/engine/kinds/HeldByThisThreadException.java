package io.github.redlock.engine.kinds;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.engine.waiting.Waiting;

/**
 * A refusal, at once, of an acquisition that the current thread's own hold of the key
 * would keep waiting forever: a write lock asked by a reader (an upgrade), or a read or
 * write lock and the exclusive lock of one key asked by the same thread. Waiting cannot
 * help, so {@link LockView#lock()} throws it rather than retry. Its reason is
 * {@link Reason#HELD_BY_THIS_THREAD}, so that nothing takes it for a lock held elsewhere.
 *
 * @author redlock contributors
 */
public final class HeldByThisThreadException extends LockAcquisitionException {

	private static final long serialVersionUID = 1L;

	public HeldByThisThreadException(String key, String message) {
		super(Reason.HELD_BY_THIS_THREAD, key, message);
	}

}
