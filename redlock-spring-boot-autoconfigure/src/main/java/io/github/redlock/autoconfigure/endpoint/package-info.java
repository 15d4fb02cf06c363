/**
 * Auto-configuration for the {@code redlock} Actuator endpoint.
 */
package io.github.redlock.autoconfigure.endpoint;
