/**
 * A side-by-side comparison, run in one JVM over the same local nodes: the registry, a
 * bare Lettuce quorum and Redisson.
 * {@link io.github.redlock.benchmarks.ComparisonBenchmark} is the entry point; it prints
 * figures and asserts nothing.
 */
package io.github.redlock.benchmarks;
