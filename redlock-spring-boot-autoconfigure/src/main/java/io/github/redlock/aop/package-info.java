/**
 * The advisor and interceptor that apply {@code @DistributedLock}, and
 * {@link io.github.redlock.aop.CurrentLease} for the method body.
 */
package io.github.redlock.aop;
