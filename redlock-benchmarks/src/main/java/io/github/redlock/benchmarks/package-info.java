/**
 * A side-by-side comparison over the same local nodes: the registry, a bare Lettuce
 * quorum and Redisson, in one JVM and across two.
 * {@link io.github.redlock.benchmarks.ComparisonBenchmark} is the entry point; it starts
 * {@link io.github.redlock.benchmarks.SecondJvmMain} for the two-JVM scenarios, prints
 * figures and asserts nothing.
 */
package io.github.redlock.benchmarks;
