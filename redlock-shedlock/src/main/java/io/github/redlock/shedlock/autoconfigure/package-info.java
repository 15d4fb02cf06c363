/**
 * Auto-configuration of the ShedLock {@code LockProvider} over the redlock
 * {@code LockRegistry}.
 */
package io.github.redlock.shedlock.autoconfigure;
