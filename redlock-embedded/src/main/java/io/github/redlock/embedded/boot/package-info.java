/**
 * The development mode for Spring Boot applications: local nodes when
 * {@code redlock.nodes} and {@code redlock.clusters} are unset.
 */
@NullMarked
package io.github.redlock.embedded.boot;

import org.jspecify.annotations.NullMarked;
