package io.github.redlock.engine.waiting;

import java.util.ArrayDeque;

/**
 * Runs waiters' attempts and timeouts on the calling thread with a bounded stack. An
 * attempt can end on the stack that started it (every node answers at once when all are
 * down or ruled out), and its end hands the turn to the next waiter, whose attempt ends
 * the same way: run directly, a line of a thousand waiters recursed a thousand times, and
 * the {@code StackOverflowError}, swallowed by a {@code CompletableFuture}, left a waiter
 * attempting with no timer.
 * <p>
 * <b>Invariant:</b> an attempt or timeout runs through {@link #run}, never nested on
 * another's stack: one asked for while this thread runs one is queued, and run by the
 * outermost call once the one before has returned, so the stack stays one attempt deep,
 * however long the line.
 *
 * @author redlock contributors
 */
final class Trampoline {

	/**
	 * The attempts and timeouts that a hand-off asked for while this thread was running
	 * another one. {@code null} when the thread runs none.
	 */
	private static final ThreadLocal<ArrayDeque<Runnable>> handOffs = new ThreadLocal<>();

	private Trampoline() {
	}

	/**
	 * Runs a waiter's attempt (or its timeout) on this thread, or queues it behind the
	 * one this thread runs. A failure of one does not keep the others queued from
	 * running: each is a waiter of its own; the first is thrown once all ran.
	 */
	static void run(Runnable action) {
		ArrayDeque<Runnable> queued = handOffs.get();
		if (queued != null) {
			queued.addLast(action);
			return;
		}
		queued = new ArrayDeque<>();
		handOffs.set(queued);
		Throwable failure = null;
		try {
			for (Runnable next = action; next != null; next = queued.pollFirst()) {
				try {
					next.run();
				}
				catch (RuntimeException | Error ex) {
					if (failure == null) {
						failure = ex;
					}
					else {
						failure.addSuppressed(ex);
					}
				}
			}
		}
		finally {
			handOffs.remove();
		}
		if (failure instanceof RuntimeException runtime) {
			throw runtime;
		}
		if (failure instanceof Error error) {
			throw error;
		}
	}

}
