/**
 * Auto-configuration of the ShedLock {@code LockProvider} over the redlock
 * {@code LockRegistry}.
 */
@NullMarked
package io.github.redlock.shedlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
