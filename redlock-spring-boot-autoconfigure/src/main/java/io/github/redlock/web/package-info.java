/**
 * Web answers for refused locks: {@link io.github.redlock.web.LockExceptionHandler} turns
 * a {@link io.github.redlock.LockAcquisitionException} or a
 * {@link io.github.redlock.LockLostException} that reaches a Spring MVC or WebFlux
 * controller into an RFC 9457 problem detail (409 or 503).
 */
@NullMarked
package io.github.redlock.web;

import org.jspecify.annotations.NullMarked;
