package io.github.redlock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;

/**
 * The torture's clock faults, all within the bounds the safety model assumes
 * (docs/safety-model.md, "Clocks"), on the nodes that have a fake clock: no clock is off
 * true time by more than {@link #bound()}, four fifths of half of {@code maxTtl}; a
 * running node's clock is set back by up to that much, or stepped forward by no more than
 * the drift the validity allows for ({@value #DRIFT_STEP_MILLIS} ms, once per two TTLs at
 * most, as a clock running one per cent fast would), never further; a node that restarts
 * (with or without its data, or from an old snapshot) comes back with its clock anywhere
 * within the bound, ahead or behind. Each fault touches one node, two (a minority) or all
 * three (a quorum of five). {@link ClockFaultsIntegrationTests} shows the checker finding
 * what the same faults beyond the bounds break.
 */
final class ClockNemesis {

	static final long DRIFT_STEP_MILLIS = 10;

	private final RedisFleet fleet;

	private final Random random;

	private final Duration ttl;

	private final Duration bound;

	private final List<Integer> nodes = new ArrayList<>();

	private final long[] lastForward;

	private Consumer<String> count = (fault) -> {
	};

	private Consumer<String> skip = (why) -> {
	};

	ClockNemesis(RedisFleet fleet, Random random, Duration ttl, Duration maxTtl) {
		this.fleet = fleet;
		this.random = random;
		this.ttl = ttl;
		this.bound = maxTtl.dividedBy(2).multipliedBy(4).dividedBy(5);
		for (int node = 0; node < fleet.size(); node++) {
			if (fleet.node(node).hasFakeClock()) {
				this.nodes.add(node);
			}
		}
		this.lastForward = new long[fleet.size()];
	}

	/**
	 * Returns how far a clock may be off true time in this run.
	 */
	Duration bound() {
		return this.bound;
	}

	/**
	 * Returns whether any node has a fake clock: without, there is nothing to do.
	 */
	boolean active() {
		return !this.nodes.isEmpty();
	}

	/**
	 * Tells the nemesis of each fault injected and each skipped.
	 */
	void reportTo(Consumer<String> count, Consumer<String> skip) {
		this.count = count;
		this.skip = skip;
	}

	/**
	 * Skews every clock within the bound, before any client runs (a step forward on a
	 * running node would be beyond the bounds), and returns the offsets.
	 */
	String skew() {
		for (int node : this.nodes) {
			this.fleet.node(node).clockOffset(anywhereWithin());
		}
		return offsets();
	}

	/**
	 * Returns each node's clock offset, for the run's summary.
	 */
	String offsets() {
		return this.nodes.stream()
			.map((node) -> "node" + node + " "
					+ String.format(Locale.ROOT, "%+d ms", this.fleet.node(node).clockOffset().toMillis()))
			.collect(Collectors.joining(", "));
	}

	/**
	 * Sets back the clocks of one node, two, or all of them (a quorum), each by up to the
	 * bound, no further than the bound behind true time.
	 */
	void setBack() {
		setBack(choose());
	}

	/**
	 * Sets back the clocks of every node that has a fake clock (a quorum), each by up to
	 * the bound, no further than the bound behind true time.
	 */
	void setBackAll() {
		setBack(this.nodes);
	}

	private void setBack(List<Integer> chosen) {
		int moved = 0;
		for (int node : chosen) {
			RedisNode target = this.fleet.node(node);
			long least = -this.bound.toMillis();
			long now = target.clockOffset().toMillis();
			long to = Math.max(least, now - 100 - this.random.nextInt((int) this.bound.toMillis() - 100));
			if (to < now) {
				target.clockOffset(Duration.ofMillis(to));
				moved++;
			}
		}
		if (moved == 0) {
			this.skip.accept("clocks already as far behind as the bound lets them");
			return;
		}
		this.count.accept(Nemesis.Kind.CLOCK_SET_BACK.label + " (" + extent(chosen) + ")");
	}

	/**
	 * Steps the clocks of one node, two, or all of them forward by the drift the validity
	 * allows for, unless one of them did so within two TTLs or would pass the bound.
	 */
	void stepForward() {
		List<Integer> chosen = choose();
		long now = System.nanoTime();
		for (int node : chosen) {
			RedisNode target = this.fleet.node(node);
			if (now - this.lastForward[node] < this.ttl.multipliedBy(2).toNanos()
					|| target.clockOffset().toMillis() + DRIFT_STEP_MILLIS > this.bound.toMillis()) {
				this.skip.accept("clock stepped forward lately, or at the bound");
				return;
			}
		}
		for (int node : chosen) {
			RedisNode target = this.fleet.node(node);
			target.clockOffset(target.clockOffset().plusMillis(DRIFT_STEP_MILLIS));
			this.lastForward[node] = now;
		}
		this.count.accept(
				Nemesis.Kind.CLOCK_STEPPED_FORWARD.label + " (" + DRIFT_STEP_MILLIS + " ms, " + extent(chosen) + ")");
	}

	/**
	 * Moves the clock of a node that is about to restart anywhere within the bound from
	 * its next start, as a machine that reboots may set it; returns whether it had a fake
	 * clock to move. Its data comes back with the expiries its old clock gave it: the
	 * restart guard keeps the node out of every quorum until they no longer matter.
	 */
	boolean beforeRestart(int node) {
		if (!this.nodes.contains(node)) {
			return false;
		}
		this.fleet.node(node).clockOffsetFromNextStart(anywhereWithin());
		return true;
	}

	private Duration anywhereWithin() {
		long bound = this.bound.toMillis();
		return Duration.ofMillis(-bound + this.random.nextInt((int) (2 * bound + 1)));
	}

	private List<Integer> choose() {
		List<Integer> shuffled = new ArrayList<>(this.nodes);
		Collections.shuffle(shuffled, this.random);
		int draw = this.random.nextInt(3);
		return shuffled.subList(0, Math.min(shuffled.size(), draw + 1));
	}

	private String extent(List<Integer> nodes) {
		return (nodes.size() * 2 > this.fleet.size()) ? "a quorum" : (nodes.size() == 1) ? "one node" : "a minority";
	}

}
