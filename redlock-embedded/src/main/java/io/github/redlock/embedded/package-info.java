/**
 * Real {@code redis-server} node fleets and Redis Clusters for development and tests,
 * with fault controls.
 */
package io.github.redlock.embedded;
