/**
 * Auto-configuration for Micrometer Observations of the distributed locks.
 */
package io.github.redlock.autoconfigure.observation;
