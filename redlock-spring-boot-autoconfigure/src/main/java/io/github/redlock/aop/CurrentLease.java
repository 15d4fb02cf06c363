package io.github.redlock.aop;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

import io.github.redlock.Lease;
import reactor.core.publisher.Mono;

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
 * that returns a {@code CompletionStage}. A method that returns a {@code Mono} or
 * {@code Flux}, and a Kotlin {@code suspend} function, read it from the Reactor context
 * instead, with {@link #mono()} ({@code CurrentLease.mono().awaitSingle()} in a
 * {@code suspend} function, with {@code kotlinx-coroutines-reactor}):
 *
 * <pre class="code">
 * &#064;DistributedLock(key = "'report'")
 * Mono&lt;Void&gt; write(Report report) {
 *     return CurrentLease.mono().flatMap((lease) -&gt; store.save(report, lease.fencingToken()));
 * }
 * </pre>
 *
 * @author redlock contributors
 */
public final class CurrentLease {

	private static final ThreadLocal<Deque<List<Lease>>> LEASES = ThreadLocal.withInitial(ArrayDeque::new);

	/**
	 * Key of the leases in the Reactor context of a locked {@code Mono} or {@code Flux}.
	 */
	static final Object CONTEXT_KEY = CurrentLease.class;

	private CurrentLease() {
	}

	/**
	 * Returns, inside the pipeline of a {@code @DistributedLock} method that returns a
	 * {@code Mono} or {@code Flux}, the lease it holds (the innermost such method's; when
	 * its key named several locks, the first in lock order). The lease is read from the
	 * Reactor context when the returned {@code Mono} is subscribed to, so build it into
	 * the pipeline that the method returns. In a {@code @DistributedLock suspend}
	 * function, await it: {@code CurrentLease.mono().awaitSingle()} reads the Reactor
	 * context that Spring's coroutine bridge gives the function's coroutine.
	 * @return a {@code Mono} of the lease, which fails with an
	 * {@link IllegalStateException} outside such a pipeline
	 */
	// getOrDefault answers the default it is given, never null
	@SuppressWarnings("NullAway")
	public static Mono<Lease> mono() {
		return Mono.deferContextual((context) -> {
			List<Lease> leases = context.getOrDefault(CONTEXT_KEY, List.of());
			return (!leases.isEmpty()) ? Mono.just(leases.get(0)) : Mono.error(new IllegalStateException(
					"No @DistributedLock method returning a Mono or Flux holds a lock in this pipeline"));
		});
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
