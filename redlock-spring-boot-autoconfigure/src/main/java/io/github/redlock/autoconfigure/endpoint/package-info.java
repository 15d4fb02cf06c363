/**
 * Auto-configuration for the {@code redlock} Actuator endpoint.
 */
@NullMarked
package io.github.redlock.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
