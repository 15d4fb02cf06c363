/**
 * Actuator health for the redlock nodes.
 */
@NullMarked
package io.github.redlock.health;

import org.jspecify.annotations.NullMarked;
