/**
 * Auto-configuration for Micrometer metrics of the distributed locks.
 */
@NullMarked
package io.github.redlock.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
