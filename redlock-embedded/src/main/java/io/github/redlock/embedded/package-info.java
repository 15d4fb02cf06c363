/**
 * Real {@code redis-server} node fleets and Redis Clusters for development and tests,
 * with fault controls.
 */
@NullMarked
package io.github.redlock.embedded;

import org.jspecify.annotations.NullMarked;
