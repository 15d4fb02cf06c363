/**
 * Auto-configuration for Micrometer Observations of the distributed locks.
 */
@NullMarked
package io.github.redlock.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
