/**
 * Micrometer metrics for distributed locks.
 */
package io.github.redlock.metrics;
