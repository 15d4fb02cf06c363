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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * Locks around a {@code Mono} or {@code Flux}: acquired without blocking when it is
 * subscribed to, released when it completes, fails or is cancelled. Loaded only when
 * Reactor is present.
 *
 * @author redlock contributors
 */
final class ReactiveLocking {

	private static final Log logger = LogFactory.getLog(ReactiveLocking.class);

	private ReactiveLocking() {
	}

	static boolean isReactive(Class<?> type) {
		return Mono.class.isAssignableFrom(type) || Flux.class.isAssignableFrom(type);
	}

	@SuppressWarnings("unchecked")
	static Object lock(MethodLocks locks, LockOperation operation, List<String> keys, Duration ttl, Duration waitTime,
			Object publisher) {
		if (publisher == null) {
			return null;
		}
		Mono<List<Lease>> acquire = Mono.defer(() -> acquireAll(locks, operation, keys, ttl, waitTime));
		if (publisher instanceof Mono<?> mono) {
			Mono<Object> source = (Mono<Object>) mono;
			return Mono.usingWhen(acquire,
					(leases) -> source.contextWrite(Context.of(CurrentLease.CONTEXT_KEY, leases))
						.flatMap((value) -> check(locks, operation, leases).thenReturn(value))
						.switchIfEmpty(Mono.defer(() -> check(locks, operation, leases).then(Mono.empty()))),
					ReactiveLocking::release, (leases, ex) -> release(leases), ReactiveLocking::release);
		}
		Flux<Object> source = (Flux<Object>) publisher;
		return Flux.usingWhen(acquire,
				(leases) -> source.contextWrite(Context.of(CurrentLease.CONTEXT_KEY, leases))
					.concatWith(Mono.defer(() -> check(locks, operation, leases)).then(Mono.empty())),
				ReactiveLocking::release, (leases, ex) -> release(leases), ReactiveLocking::release);
	}

	private static Mono<List<Lease>> acquireAll(MethodLocks locks, LockOperation operation, List<String> keys,
			Duration ttl, Duration waitTime) {
		long deadline = System.nanoTime() + waitTime.toNanos();
		List<Lease> acquired = Collections.synchronizedList(new ArrayList<>());
		return Flux.fromIterable(keys)
			.concatMap((key) -> Mono.fromFuture(() -> locks.registry()
				.acquireAsync(key, ttl, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())),
						operation.autoExtend())))
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
