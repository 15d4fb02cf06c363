/**
 * The development mode for Spring Boot applications: local nodes when
 * {@code redlock.nodes} and {@code redlock.clusters} are unset.
 */
package io.github.redlock.embedded.boot;
