/**
 * The development mode for Spring Boot applications: local nodes when
 * {@code redlock.nodes} is unset.
 */
package io.github.redlock.embedded.boot;
