package io.github.redlock.metrics;

import io.github.redlock.engine.NodeState;
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
 * <li>{@code redlock.node.state}, tagged {@code node} (its URI without credentials; a
 * cluster member, its name): {@value #USABLE} while the node counts toward quorums,
 * {@value #OUT} while it is connected but kept out (the restart guard, for instance),
 * {@value #DOWN} while it is disconnected ({@link NodeState}); read from the same events,
 * no node is asked. Alert when it is below {@value #USABLE}.</li>
 * </ul>
 *
 * @author redlock contributors
 * @see RedlockMetrics
 */
public class RedlockRegistryMeterBinder implements MeterBinder {

	/** {@code redlock.node.state} of a node that counts toward quorums. */
	public static final int USABLE = 2;

	/** {@code redlock.node.state} of a node connected but kept out of quorums. */
	public static final int OUT = 1;

	/** {@code redlock.node.state} of a node that is disconnected. */
	public static final int DOWN = 0;

	private final RedlockRegistry registry;

	/**
	 * Creates a binder for the given registry.
	 * @param registry the lock registry
	 */
	public RedlockRegistryMeterBinder(RedlockRegistry registry) {
		this.registry = registry;
	}

	private static double state(RedlockRegistry registry, String node) {
		NodeState state = registry.nodeStates().get(node);
		if (state == null) {
			return Double.NaN;
		}
		return switch (state) {
			case USABLE -> USABLE;
			case OUT -> OUT;
			case DOWN -> DOWN;
		};
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
		for (String node : this.registry.nodeStates().keySet()) {
			Gauge.builder("redlock.node.state", this.registry, (registry) -> state(registry, node))
				.description("Whether a redlock node counts toward quorums: 2 usable, 1 connected but kept out, 0 down")
				.tag("node", node)
				.register(meterRegistry);
		}
	}

}
