package io.github.redlock.metrics;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToDoubleFunction;

import io.github.redlock.engine.NodeStatus;
import io.github.redlock.engine.RedlockRegistry;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * Binds the masters of a {@link RedlockRegistry} whose members are Redis or Valkey
 * Clusters to Micrometer, in gauges tagged {@code member} with the member's index in
 * configuration order (that of {@code redlock.clusters}, from 0):
 * <ul>
 * <li>{@code redlock.cluster.masters}: masters the member routes to (a master that its
 * cluster marked as failed is no longer one);</li>
 * <li>{@code redlock.cluster.masters.usable}: of those, the masters that count now;</li>
 * <li>{@code redlock.cluster.usable}: 1 while the member counts toward a quorum (every
 * slot has a master and every master counts), else 0. Alert when it is 0: the member is
 * one member down, as a single node that fails is.</li>
 * </ul>
 * Unlike {@code redlock.nodes.usable}, these ask the masters
 * ({@link RedlockRegistry#checkNodes()}, about one node timeout at most): once for all
 * the gauges read within {@link #MAX_AGE}, so that a scrape asks each master once. They
 * read {@code NaN} while the registry is closed.
 * <p>
 * Auto-configured when {@code redlock.clusters} is set; an application that builds its
 * own registry of clusters registers one as a bean.
 *
 * @author redlock contributors
 * @see RedlockRegistryMeterBinder
 */
public class RedlockClusterMeterBinder implements MeterBinder {

	/** How long one check of the masters serves the gauges. */
	public static final Duration MAX_AGE = Duration.ofSeconds(1);

	private final RedlockRegistry registry;

	private final ReentrantLock checking = new ReentrantLock();

	private volatile @Nullable Check last;

	/**
	 * Creates a binder for the given registry.
	 * @param registry the lock registry, whose members are clusters
	 */
	public RedlockClusterMeterBinder(RedlockRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void bindTo(MeterRegistry meterRegistry) {
		for (int member = 0; member < this.registry.nodeCount(); member++) {
			gauge(meterRegistry, "redlock.cluster.masters", "Masters a redlock cluster member routes to", member,
					(status) -> status.masters().size());
			gauge(meterRegistry, "redlock.cluster.masters.usable", "Masters of a redlock cluster member that count now",
					member, (status) -> status.masters().stream().filter(NodeStatus::usable).count());
			gauge(meterRegistry, "redlock.cluster.usable",
					"1 while a redlock cluster member counts toward a quorum, else 0", member,
					(status) -> status.usable() ? 1 : 0);
		}
	}

	private void gauge(MeterRegistry meterRegistry, String name, String description, int member,
			ToDoubleFunction<NodeStatus> value) {
		Gauge.builder(name, this, (binder) -> binder.read(member, value))
			.description(description)
			.tag("member", String.valueOf(member))
			.register(meterRegistry);
	}

	private double read(int member, ToDoubleFunction<NodeStatus> value) {
		List<NodeStatus> members = statuses();
		return (members != null && member < members.size()) ? value.applyAsDouble(members.get(member)) : Double.NaN;
	}

	/**
	 * The members' states of a check at most {@link #MAX_AGE} old; a reader that finds it
	 * older checks, and the others wait for that check rather than asking again.
	 */
	private @Nullable List<NodeStatus> statuses() {
		Check check = this.last;
		if (check != null && check.isFresh()) {
			return check.members();
		}
		this.checking.lock();
		try {
			check = this.last;
			if (check == null || !check.isFresh()) {
				check = new Check(System.nanoTime(), checkNodes());
				this.last = check;
			}
			return check.members();
		}
		finally {
			this.checking.unlock();
		}
	}

	private @Nullable List<NodeStatus> checkNodes() {
		try {
			return this.registry.checkNodes();
		}
		catch (IllegalStateException ex) {
			// closed: nothing to show
			return null;
		}
	}

	private record Check(long nanos, @Nullable List<NodeStatus> members) {

		boolean isFresh() {
			return System.nanoTime() - this.nanos < MAX_AGE.toNanos();
		}

	}

}
