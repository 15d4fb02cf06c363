/**
 * The API of distributed locks: {@link io.github.redlock.LockRegistry},
 * {@link io.github.redlock.Lease} and the exceptions.
 */
@NullMarked
package io.github.redlock;

import org.jspecify.annotations.NullMarked;
