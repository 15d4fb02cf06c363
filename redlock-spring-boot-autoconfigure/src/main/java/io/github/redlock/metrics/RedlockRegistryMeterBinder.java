package io.github.redlock.metrics;

import io.github.redlock.engine.RedlockRegistry;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds the state of a {@link RedlockRegistry} to Micrometer:
 * <ul>
 * <li>{@code redlock.leases.active}: leases this application holds now;</li>
 * <li>{@code redlock.fencing.second.rounds}: acquisitions that needed a second round trip
 * to align the fencing counters of the agreeing nodes (rare once nodes have seen the same
 * acquisitions; many point at nodes that keep missing writes);</li>
 * <li>{@code redlock.nodes.usable}: nodes that count toward a quorum now (connected and
 * not kept out by the restart guard, as the connection events say; no node is
 * asked);</li>
 * <li>{@code redlock.nodes.quorum}: how many nodes must agree;</li>
 * <li>{@code redlock.nodes.tolerated.failures}: how many more nodes may fail before no
 * lock can be acquired or extended ({@code usable - quorum}, at least 0). Alert when it
 * is 0: the next node to fail stops every lock.</li>
 * <li>{@code redlock.nodes.clock.faults}: nodes their clocks keep out of every quorum
 * now, having jumped or being far off the other nodes' clocks
 * ({@link RedlockRegistry#clockFaultNodes()}; no node is asked). Alert above 0: a node's
 * clock is being stepped.</li>
 * </ul>
 *
 * @author redlock contributors
 * @see RedlockMetrics
 */
public class RedlockRegistryMeterBinder implements MeterBinder {

	private final RedlockRegistry registry;

	/**
	 * Creates a binder for the given registry.
	 * @param registry the lock registry
	 */
	public RedlockRegistryMeterBinder(RedlockRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void bindTo(MeterRegistry meterRegistry) {
		Gauge.builder("redlock.leases.active", this.registry, RedlockRegistry::heldLeases)
			.description("Distributed locks this application holds now")
			.register(meterRegistry);
		FunctionCounter.builder("redlock.fencing.second.rounds", this.registry, RedlockRegistry::fencingRounds)
			.description("Acquisitions that needed a second round trip to align fencing counters")
			.register(meterRegistry);
		Gauge.builder("redlock.nodes.usable", this.registry, RedlockRegistry::usableNodes)
			.description("Redlock nodes that count toward a quorum now")
			.register(meterRegistry);
		Gauge.builder("redlock.nodes.quorum", this.registry, RedlockRegistry::quorum)
			.description("Redlock nodes that must agree to acquire or extend a lock")
			.register(meterRegistry);
		Gauge.builder("redlock.nodes.tolerated.failures", this.registry, RedlockRegistry::toleratedFailures)
			.description("Further node failures the quorum tolerates before no lock can be acquired; alert at 0")
			.register(meterRegistry);
		Gauge.builder("redlock.nodes.clock.faults", this.registry, RedlockRegistry::clockFaultNodes)
			.description(
					"Redlock nodes kept out of every quorum now because their clock jumped or is far off the others'")
			.register(meterRegistry);
	}

}
