/**
 * The advisor and interceptor that apply {@code @DistributedLock}, and
 * {@link io.github.redlock.aop.CurrentLease} for the method body.
 * <p>
 * {@code DistributedLockAdvisor} matches annotated methods ({@code LockOperationSource}
 * parses and checks each annotation once, when its bean is proxied;
 * {@code LockInterceptionCheck} refuses a locked method the proxy cannot intercept). At a
 * call, {@code DistributedLockInterceptor} evaluates the keys ({@code LockKeyEvaluator})
 * and hands the call to the locking for its return type: {@code BlockingLocking},
 * {@code CompletionStageLocking} or {@code ReactiveLocking}. All three acquire, check and
 * release through {@code MethodLocks}; {@code TransactionAwareRelease} defers a release
 * to the end of the surrounding transaction.
 */
@NullMarked
package io.github.redlock.aop;

import org.jspecify.annotations.NullMarked;
