package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;

import io.github.redlock.annotation.LockMode;
import org.jspecify.annotations.Nullable;

import org.springframework.context.expression.AnnotatedElementKey;

/**
 * One annotated method's lock, parsed and checked once when its bean is proxied.
 *
 * @param description the method, as {@code OrderService.pay(long)}, for messages
 * @param method the most specific method, on which the key is evaluated
 * @param elementKey the cache key of the parsed key expression
 * @param keyExpression the key's SpEL source
 * @param ttl the TTL, or {@code null} for the default
 * @param waitTime the wait time, or {@code null} for the default
 * @param autoExtend whether to keep the lease extended
 * @param skipIfLocked whether to skip the call when the lock is held elsewhere
 * @param holdAtLeast the least time the lock stays held once acquired, or {@code null}
 * @param returnType how the lock follows the work of the method's return type
 * @param mode how the key is locked: exclusive, read or write
 * @param permits the permits of a semaphore on the key, or 0 for a lock
 * @param parts a key written as a {@code +} concatenation, split so that each operand is
 * evaluated once and checked for {@code null}; {@code null} for any other key
 * @author redlock contributors
 */
record LockOperation(String description, Method method, AnnotatedElementKey elementKey, String keyExpression,
		@Nullable Duration ttl, @Nullable Duration waitTime, boolean autoExtend, @Nullable KeyParts parts,
		boolean skipIfLocked, @Nullable Duration holdAtLeast, LockedReturnType returnType, LockMode mode, int permits) {
}
