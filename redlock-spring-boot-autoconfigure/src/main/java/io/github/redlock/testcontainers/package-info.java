/**
 * Testcontainers service connections for the lock quorum: a node for every container
 * annotated {@code @ServiceConnection("redlock")}, whether a static field of a test class
 * or a {@code @Bean}.
 */
package io.github.redlock.testcontainers;
