/**
 * The {@link io.github.redlock.annotation.DistributedLock} annotation.
 */
@NullMarked
package io.github.redlock.annotation;

import org.jspecify.annotations.NullMarked;
