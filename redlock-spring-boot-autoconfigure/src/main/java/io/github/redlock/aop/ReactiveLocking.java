package io.github.redlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.ReactiveAdapter;

/**
 * Locks around a {@code Mono}, a {@code Flux}, or any reactive type that Spring's
 * {@code ReactiveAdapterRegistry} adapts to one: acquired without blocking when it is
 * subscribed to, released when it completes, fails or is cancelled. The method itself is
 * called only once the locks are held, once per subscription, on a registry callback
 * thread (never a Lettuce I/O thread). Not reentrant: every subscription takes leases of
 * its own, exclusive, read, write or permit as the operation says. The method's own
 * publisher is adapted to Reactor, and the locked one back to the declared type. A Kotlin
 * {@code suspend} function comes here too: Spring's coroutine bridge hands the
 * interceptor a {@code Mono} (or {@code Flux}) of the call, and awaits the locked one in
 * the caller's coroutine, whose cancellation cancels the subscription. Loaded only when
 * Reactor is present.
 *
 * @author redlock contributors
 */
final class ReactiveLocking {

	private static final Log logger = LogFactory.getLog(ReactiveLocking.class);

	private ReactiveLocking() {
	}

	static boolean isMono(Class<?> type) {
		return Mono.class.isAssignableFrom(type);
	}

	static boolean isFlux(Class<?> type) {
		return Flux.class.isAssignableFrom(type);
	}

	/**
	 * Returns a publisher of the declared type that fails with the given error when
	 * subscribed to: how a reactive method reports a key it could not evaluate.
	 */
	static Object error(LockedReturnType type, Throwable error) {
		Publisher<Object> failed = (type.style() == LockedReturnType.Style.MONO) ? Mono.error(error)
				: Flux.error(error);
		return (type.adapter() != null) ? type.adapter().fromPublisher(failed) : failed;
	}

	/**
	 * Returns a publisher of the declared type that, on each subscription, acquires the
	 * leases, then calls the method and subscribes to what it returns, and releases when
	 * that completes, fails or is cancelled. Nothing of the method runs before its locks
	 * are held.
	 */
	static Object lock(MethodLocks locks, LockOperation operation, List<String> keys, Duration ttl, Duration waitTime,
			MethodInvocation invocation) {
		ReactiveAdapter adapter = operation.returnType().adapter();
		// each subscription calls the rest of the advice chain afresh
		MethodInvocation template = (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone()
				: invocation;
		// a subscription that skips when locked gets no leases, so the method is not
		// called
		Mono<List<Lease>> acquire = Mono.defer(() -> acquireAll(locks, operation, keys, ttl, waitTime))
			.onErrorResume((ex) -> MethodLocks.skips(operation, ex), (ex) -> Mono.empty());
		if (operation.returnType().style() == LockedReturnType.Style.MONO) {
			Mono<Object> locked = Mono.usingWhen(acquire,
					(leases) -> Mono.defer(() -> Mono.from(call(template, adapter)))
						.contextWrite(Context.of(CurrentLease.CONTEXT_KEY, leases))
						.flatMap((value) -> check(locks, operation, leases).thenReturn(value))
						.switchIfEmpty(Mono.defer(() -> check(locks, operation, leases).then(Mono.empty()))),
					ReactiveLocking::release, (leases, ex) -> release(leases), ReactiveLocking::release);
			return (adapter != null) ? adapter.fromPublisher(locked) : locked;
		}
		Flux<Object> locked = Flux.usingWhen(acquire,
				(leases) -> Flux.defer(() -> call(template, adapter))
					.contextWrite(Context.of(CurrentLease.CONTEXT_KEY, leases))
					.concatWith(Mono.defer(() -> check(locks, operation, leases)).then(Mono.empty())),
				ReactiveLocking::release, (leases, ex) -> release(leases), ReactiveLocking::release);
		return (adapter != null) ? adapter.fromPublisher(locked) : locked;
	}

	@SuppressWarnings("unchecked")
	private static Publisher<Object> call(MethodInvocation template, @Nullable ReactiveAdapter adapter) {
		MethodInvocation invocation = (template instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone()
				: template;
		try {
			Object publisher = invocation.proceed();
			if (publisher == null) {
				return Mono.empty();
			}
			return (adapter != null) ? (Publisher<Object>) adapter.toPublisher(publisher)
					: (Publisher<Object>) publisher;
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	private static Mono<List<Lease>> acquireAll(MethodLocks locks, LockOperation operation, List<String> keys,
			Duration ttl, Duration waitTime) {
		long deadline = System.nanoTime() + waitTime.toNanos();
		List<Lease> acquired = Collections.synchronizedList(new ArrayList<>());
		return Flux.fromIterable(keys)
			// started under the subscriber's observation, which Reactor keeps in its
			// context
			.concatMap((key) -> Mono
				.deferContextual((context) -> Mono.fromFuture(() -> SubscriberThreadLocals.call(context,
						() -> locks.acquireAsync(operation, key, ttl,
								Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))))))
			.doOnNext(acquired::add)
			.then(Mono.fromSupplier(() -> List.copyOf(acquired)))
			.doOnError((ex) -> MethodLocks.releaseAllAsync(List.copyOf(acquired)))
			.doOnCancel(() -> MethodLocks.releaseAllAsync(List.copyOf(acquired)))
			.onErrorMap(LockAcquisitionException.class,
					(ex) -> new LockAcquisitionException(MethodLocks.acquisitionMessage(operation, ex), ex));
	}

	private static Mono<Void> check(MethodLocks locks, LockOperation operation, List<Lease> leases) {
		LockLostException lost = locks.lost(operation, leases);
		if (lost == null) {
			return Mono.empty();
		}
		if (locks.lostLockPolicy() == LostLockPolicy.THROW) {
			return Mono.error(lost);
		}
		logger.warn(lost.getMessage());
		return Mono.empty();
	}

	private static Mono<Void> release(List<Lease> leases) {
		return Mono.fromFuture(() -> MethodLocks.releaseAllAsync(leases));
	}

}
