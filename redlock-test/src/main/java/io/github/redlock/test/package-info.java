/**
 * Test support: {@link io.github.redlock.test.InMemoryLockRegistry}, a
 * {@link io.github.redlock.LockRegistry} in memory with the quorum registry's contract,
 * for fast unit tests of code that locks.
 */
@NullMarked
package io.github.redlock.test;

import org.jspecify.annotations.NullMarked;
