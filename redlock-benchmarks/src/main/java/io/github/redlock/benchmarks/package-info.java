/**
 * A side-by-side comparison over the same local nodes: the registry, a bare Lettuce
 * quorum and Redisson, in one JVM and across two.
 * {@link io.github.redlock.benchmarks.ComparisonBenchmark} is the entry point; it starts
 * {@link io.github.redlock.benchmarks.SecondJvmMain} for the two-JVM scenarios, prints
 * figures and asserts nothing. {@link io.github.redlock.benchmarks.CycleCostBenchmark}
 * prints issue 40's cost of a cycle,
 * {@link io.github.redlock.benchmarks.HeldLeasesBenchmark} what many held, auto-extended
 * leases cost.
 */
package io.github.redlock.benchmarks;
