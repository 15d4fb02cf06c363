/**
 * The {@code redlock} Actuator endpoint: the state of every node, and who holds one lock
 * where.
 */
@NullMarked
package io.github.redlock.endpoint;

import org.jspecify.annotations.NullMarked;
