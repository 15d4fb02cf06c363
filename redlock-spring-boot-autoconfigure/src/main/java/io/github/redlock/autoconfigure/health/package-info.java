/**
 * Auto-configuration for the Actuator health of the redlock nodes.
 */
package io.github.redlock.autoconfigure.health;
