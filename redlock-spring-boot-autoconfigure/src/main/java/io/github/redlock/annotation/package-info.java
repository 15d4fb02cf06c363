/**
 * The {@link io.github.redlock.annotation.DistributedLock} annotation.
 */
package io.github.redlock.annotation;
