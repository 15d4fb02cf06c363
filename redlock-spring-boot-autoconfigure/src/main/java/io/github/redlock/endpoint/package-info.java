/**
 * The {@code redlock} Actuator endpoint: the state of every node, and who holds one lock
 * where.
 */
package io.github.redlock.endpoint;
