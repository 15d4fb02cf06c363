package io.github.redlock.aop;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

import io.github.redlock.Lease;

/**
 * The lease of the innermost {@code @DistributedLock} method running on the current
 * thread, for instance to pass its fencing token to a store:
 *
 * <pre class="code">
 * &#064;DistributedLock(key = "'report'")
 * void write(Report report) {
 *     store.save(report, CurrentLease.get().fencingToken());
 * }
 * </pre>
 *
 * Available while a blocking method runs, and during the synchronous part of a method
 * that returns a {@code CompletionStage}; not inside reactive pipelines.
 *
 * @author redlock contributors
 */
public final class CurrentLease {

	private static final ThreadLocal<Deque<List<Lease>>> LEASES = ThreadLocal.withInitial(ArrayDeque::new);

	private CurrentLease() {
	}

	/**
	 * Returns the lease of the innermost {@code @DistributedLock} method on this thread;
	 * when its key named several locks, the first in lock order.
	 * @return the lease
	 * @throws IllegalStateException if no such method runs on this thread
	 */
	public static Lease get() {
		return find().orElseThrow(() -> new IllegalStateException(
				"No @DistributedLock method is running on thread '" + Thread.currentThread().getName() + "'"));
	}

	/**
	 * Returns the lease of the innermost {@code @DistributedLock} method on this thread,
	 * if any.
	 * @return the lease, or empty
	 */
	public static Optional<Lease> find() {
		List<Lease> leases = LEASES.get().peek();
		return (leases != null && !leases.isEmpty()) ? Optional.of(leases.get(0)) : Optional.empty();
	}

	/**
	 * Returns every lease of the innermost {@code @DistributedLock} method on this
	 * thread, in lock order, for a key that named several locks.
	 * @return the leases, or an empty list
	 */
	public static List<Lease> all() {
		List<Lease> leases = LEASES.get().peek();
		return (leases != null) ? leases : List.of();
	}

	static void push(List<Lease> leases) {
		LEASES.get().push(leases);
	}

	static void pop() {
		Deque<List<Lease>> stack = LEASES.get();
		stack.pop();
		if (stack.isEmpty()) {
			LEASES.remove();
		}
	}

}
