/**
 * ShedLock over the redlock quorum:
 * {@link io.github.redlock.shedlock.RedlockLockProvider} locks {@code @SchedulerLock}
 * jobs on a majority of independent Redis-protocol masters.
 */
@NullMarked
package io.github.redlock.shedlock;

import org.jspecify.annotations.NullMarked;
