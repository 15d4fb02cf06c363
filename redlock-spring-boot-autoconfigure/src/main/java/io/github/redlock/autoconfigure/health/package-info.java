/**
 * Auto-configuration for the Actuator health of the redlock nodes.
 */
@NullMarked
package io.github.redlock.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
