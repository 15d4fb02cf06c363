/**
 * Real {@code redis-server} node fleets for development and tests, with fault controls.
 */
package io.github.redlock.embedded;
