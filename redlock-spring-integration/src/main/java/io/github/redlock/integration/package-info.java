/**
 * Spring Integration's lock registry over the redlock quorum:
 * {@link io.github.redlock.integration.RedlockLockRegistry} for
 * {@code LockRegistryLeaderInitiator}, aggregators, idempotent receivers and anything
 * else that takes a Spring Integration {@code LockRegistry}.
 */
@NullMarked
package io.github.redlock.integration;

import org.jspecify.annotations.NullMarked;
