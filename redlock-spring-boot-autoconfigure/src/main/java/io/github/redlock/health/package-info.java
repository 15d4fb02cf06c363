/**
 * Actuator health for the redlock nodes.
 */
package io.github.redlock.health;
