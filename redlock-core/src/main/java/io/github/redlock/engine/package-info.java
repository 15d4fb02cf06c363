/**
 * The quorum engine: {@link io.github.redlock.engine.RedlockRegistry} over Lettuce, its
 * Lua scripts, fencing tokens and the lease watchdog.
 */
package io.github.redlock.engine;
