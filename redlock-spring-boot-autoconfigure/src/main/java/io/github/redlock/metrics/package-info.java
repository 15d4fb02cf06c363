/**
 * Micrometer metrics for distributed locks.
 */
@NullMarked
package io.github.redlock.metrics;

import org.jspecify.annotations.NullMarked;
