/**
 * Testcontainers service connections for the lock quorum: a node for every container
 * annotated {@code @ServiceConnection("redlock")}, whether a static field of a test class
 * or a {@code @Bean}.
 */
@NullMarked
package io.github.redlock.testcontainers;

import org.jspecify.annotations.NullMarked;
