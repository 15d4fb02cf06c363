/**
 * Micrometer Observations of distributed locks: {@code redlock.acquisition} around each
 * acquisition and {@code redlock.hold} from acquisition to release or loss, so that
 * traces show lock waits and critical sections as spans.
 * <p>
 * {@link io.github.redlock.observation.ObservationLockObserver} implements core's
 * {@link io.github.redlock.engine.LockObserver}; the key values are documented by
 * {@link io.github.redlock.observation.RedlockObservationDocumentation} and chosen by
 * replaceable conventions, as Spring's own instrumentations do.
 */
@NullMarked
package io.github.redlock.observation;

import org.jspecify.annotations.NullMarked;
