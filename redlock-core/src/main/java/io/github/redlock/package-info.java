/**
 * The API of distributed locks: {@link io.github.redlock.LockRegistry},
 * {@link io.github.redlock.Lease} and the exceptions.
 */
package io.github.redlock;
