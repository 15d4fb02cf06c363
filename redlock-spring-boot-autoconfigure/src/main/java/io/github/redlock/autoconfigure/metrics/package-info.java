/**
 * Auto-configuration for Micrometer metrics of the distributed locks.
 */
package io.github.redlock.autoconfigure.metrics;
