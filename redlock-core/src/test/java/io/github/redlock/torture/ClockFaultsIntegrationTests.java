package io.github.redlock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.FakeClocks;
import io.github.redlock.embedded.FleetProxy;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.NodeStatus;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.torture.TortureChecker.Report;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Node clocks moved beyond what the safety model assumes (docs/safety-model.md,
 * "Clocks"), each beside the same fault within it, and the {@link TortureChecker} judging
 * what the clients held: beyond the bounds it finds the violation the model predicts, so
 * the torture run's clock faults within them are known to be watched by a checker that
 * sees them. A clock that jumps forward expires a lock early on its node: with a quorum
 * of jumped nodes, or one in the intersection of two clients' quorums, a second client
 * takes a lock whose lease is still valid. A quorum that comes back from old snapshots
 * with clocks set back further than half of {@code maxTtl} has floors too low to lift its
 * old counters: it hands out tokens below earlier ones.
 */
class ClockFaultsIntegrationTests {

	private static final Duration TTL = Duration.ofSeconds(2);

	private static final Duration MAX_TTL = Duration.ofSeconds(3);

	/**
	 * The TTL of the leases a jump ends early: long enough to be still valid by their
	 * holder's clock when the second client gets in, however loaded the machine.
	 */
	private static final Duration LONG_TTL = Duration.ofSeconds(30);

	/** Far beyond any bound: every lease ends on a node stepped this far forward. */
	private static final Duration JUMP = Duration.ofSeconds(60);

	private final List<String> sections = new ArrayList<>();

	@BeforeEach
	void fakeClocks() {
		FakeClocks.assumeAvailable();
	}

	@Test
	void aQuorumOfClocksJumpingPastTheLeaseLetsASecondHolderIn() throws Exception {
		try (RedisFleet fleet = RedisFleet.startWithFakeClocks(5);
				RedlockRegistry a = unguarded(fleet.uris());
				RedlockRegistry b = unguarded(fleet.uris())) {
			Held first = Held.acquire(a, "a", "jump", LONG_TTL);
			assertThat(fleet.nodes()).as("the first lease is on every node")
				.allSatisfy((node) -> assertThat(node.call("EXISTS", "redlock:lock:{jump}")).isEqualTo(1L));
			// within the bounds: clocks set back (by half of maxTtl, as far as they may
			// be
			// off) keep the lock longer, never shorter
			for (int node = 0; node < 3; node++) {
				fleet.node(node).clockOffset(LONG_TTL.dividedBy(-2));
			}
			assertThat(b.tryAcquire("jump", LONG_TTL)).as("second client, clocks set back within the bounds").isEmpty();
			// beyond them: two nodes (a minority) jump past the lease; the other three
			// still hold it
			fleet.node(3).clockOffset(JUMP);
			fleet.node(4).clockOffset(JUMP);
			assertThat(b.tryAcquire("jump", LONG_TTL)).as("second client, a minority of clocks jumped").isEmpty();
			// and a quorum
			for (int node = 0; node < 3; node++) {
				fleet.node(node).clockOffset(JUMP);
			}
			Held second = Held.acquire(b, "b", "jump", LONG_TTL);
			boolean firstStillValid = first.stillValid();
			this.sections.add(first.end());
			this.sections.add(second.end());
			Report report = check();
			System.out.println(
					"A QUORUM OF CLOCKS JUMPED " + JUMP.toSeconds() + "s FORWARD WHILE HELD:\n" + report.summary());
			assertThat(firstStillValid).as("the first lease was still valid by its own clock").isTrue();
			assertThat(report.overlaps).singleElement().asString().contains("token " + second.token);
			assertThat(report.violations()).isOne();
		}
	}

	@Test
	void oneClockJumpingPastTheLeaseLetsASecondHolderInThroughAPartition() throws Exception {
		try (RedisFleet fleet = RedisFleet.startWithFakeClocks(5)) {
			FleetProxy left = fleet.proxy("left");
			FleetProxy right = fleet.proxy("right");
			// two clients whose majorities share node 2
			left.partition(3, 4);
			right.partition(0, 1);
			try (RedlockRegistry a = unguarded(left.uris()); RedlockRegistry b = unguarded(right.uris())) {
				Held first = Held.acquire(a, "a", "partitioned", LONG_TTL);
				assertThat(b.tryAcquire("partitioned", LONG_TTL)).as("second client, before node 2's clock jumped")
					.isEmpty();
				fleet.node(2).clockOffset(JUMP);
				Held second = Held.acquire(b, "b", "partitioned", LONG_TTL);
				boolean firstStillValid = first.stillValid();
				this.sections.add(first.end());
				this.sections.add(second.end());
				Report report = check();
				System.out.println("ONE CLOCK JUMPED " + JUMP.toSeconds()
						+ "s FORWARD WHILE HELD, IN THE INTERSECTION OF TWO PARTITIONED CLIENTS' MAJORITIES:\n"
						+ report.summary());
				assertThat(firstStillValid).as("the first lease was still valid by its own clock").isTrue();
				assertThat(report.overlaps).hasSize(1);
				assertThat(report.violations()).isOne();
			}
		}
	}

	/**
	 * Three nodes come back from snapshots older than some acquisitions, the other two
	 * paused, with their clocks moved while they were down: set back by as much as they
	 * may be off (half of {@code maxTtl}), or much further on two of them or on all
	 * three. Two nodes a minute off the median of the clocks the registry reads count
	 * toward no quorum ({@code NodeClock}), so the registry refuses rather than lean on
	 * the third node's floor; three of five move the median with them, and the tokens of
	 * a registry started since go back (one that acquired before keeps its counter starts
	 * rising).
	 */
	@ParameterizedTest(name = "restored clocks moved by {0}, {1} and {2} ms: {3}")
	@CsvSource({ "-1500, -1500, -1500, none", "-60000, -60000, 0, refused", "-60000, -60000, -60000, some" })
	void aQuorumBackFromSnapshotsWithClocksSetBack(long first, long second, long third, String regressions)
			throws Exception {
		try (RedisFleet fleet = RedisFleet.startWithFakeClocks(5, 3);
				RedlockRegistry registry = registry(fleet.uris())) {
			awaitEveryNodeCounting(registry);
			for (int i = 0; i < 3; i++) {
				this.sections.add(Held.acquire(registry, "c", "restored", TTL).end());
			}
			// a release returns once a quorum is free of the lock: the snapshots must not
			// keep the last lease's value on the others, which a clock set back by a
			// minute would keep there for a minute more
			awaitGone(fleet, "redlock:lock:{restored}");
			fleet.nodes().forEach(RedisNode::snapshot);
			for (int i = 0; i < 3; i++) {
				this.sections.add(Held.acquire(registry, "c", "restored", TTL).end());
			}
			fleet.node(3).pause();
			fleet.node(4).pause();
			long[] offsets = { first, second, third };
			for (int node = 0; node < 3; node++) {
				fleet.node(node).clockOffset(Duration.ofMillis(offsets[node]));
				fleet.node(node).crashToSnapshot();
			}
			// the restored nodes sit out maxTtl: the first acquisition after that is
			// theirs alone
			Thread.sleep(MAX_TTL.plusMillis(500).toMillis());
			if (regressions.equals("refused")) {
				long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
				while (!registry.checkNodes().get(0).problem().startsWith("clock unsteady")
						|| !registry.checkNodes().get(1).problem().startsWith("clock unsteady")) {
					assertThat(System.nanoTime()).as("both nodes a minute behind kept out within 10 s")
						.isLessThan(deadline);
					Thread.sleep(100);
				}
				// too few nodes usable: tryAcquire says so rather than "held"
				assertThatExceptionOfType(LockAcquisitionException.class).as("a quorum with two clocks a minute behind")
					.isThrownBy(() -> registry.tryAcquire("restored", TTL))
					.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(LockAcquisitionException.Reason.NO_QUORUM));
			}
			else {
				// with three clocks a minute behind, the tokens of a process that starts
				// now go back: the registry that acquired before sends counter starts
				// above its own earlier ones, which lifts its tokens past the snapshots
				try (RedlockRegistry later = regressions.equals("some") ? registry(fleet.uris()) : null) {
					RedlockRegistry acquiring = (later != null) ? later : registry;
					for (int i = 0; i < 3; i++) {
						this.sections.add(Held.acquire(acquiring, "c", "restored", TTL).end());
					}
				}
			}
			fleet.node(3).resume();
			fleet.node(4).resume();
			Report report = check();
			System.out.println("A QUORUM BACK FROM SNAPSHOTS, CLOCKS MOVED BY " + first + ", " + second + " and "
					+ third + " ms:\n" + report.summary() + "\n  tokens: "
					+ this.sections.stream().map((line) -> line.split(" ")[2]).toList());
			if (!regressions.equals("some")) {
				assertThat(report.violations()).isZero();
			}
			else {
				assertThat(report.tokenRegressions).isNotEmpty();
			}
		}
	}

	/**
	 * Waits out the maximum TTL that brand-new nodes sit out once.
	 */
	private static void awaitEveryNodeCounting(RedlockRegistry registry) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (registry.checkNodes().stream().filter(NodeStatus::usable).count() < 5) {
			assertThat(System.nanoTime()).as("nodes counting within 60 s").isLessThan(deadline);
			Thread.sleep(100);
		}
	}

	private static void awaitGone(RedisFleet fleet, String key) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (fleet.nodes().stream().anyMatch((node) -> (Long) node.call("EXISTS", key) > 0)) {
			assertThat(System.nanoTime()).as(key + " gone from every node within 30 s").isLessThan(deadline);
			Thread.sleep(20);
		}
	}

	private static RedlockRegistry registry(List<String> nodes) {
		return RedlockRegistry.builder().nodes(nodes).defaultTtl(TTL).maxTtl(MAX_TTL).build().start();
	}

	/**
	 * A registry whose brand-new nodes count at once: the restart guard acts only when a
	 * connection is made, so it plays no part in a clock that jumps while connected.
	 */
	private static RedlockRegistry unguarded(List<String> nodes) {
		return RedlockRegistry.builder()
			.nodes(nodes)
			.defaultTtl(LONG_TTL)
			.maxTtl(LONG_TTL)
			.restartGuard(false)
			.build()
			.start();
	}

	private Report check() {
		return TortureChecker.check(History.of(this.sections, List.of(), Map.of(), List.of(), List.of()));
	}

	/**
	 * A section being held, recorded as the torture's clients record theirs.
	 */
	private record Held(Lease lease, String client, long token, long askedAt, long start, long safeEnd) {

		static Held acquire(RedlockRegistry registry, String client, String key, Duration ttl)
				throws InterruptedException {
			long askedAt = System.nanoTime();
			Lease lease = registry.acquire(key, ttl, Duration.ofSeconds(30));
			long start = System.nanoTime();
			return new Held(lease, client, lease.fencingToken(), askedAt, start,
					start + lease.remainingValidity().toNanos());
		}

		boolean stillValid() {
			return System.nanoTime() < this.safeEnd;
		}

		/**
		 * Ends the section, releasing its lease, and returns its record.
		 */
		String end() {
			long end = System.nanoTime();
			this.lease.release();
			return this.lease.key() + " " + this.client + " " + this.token + " " + this.start + " " + end + " "
					+ this.safeEnd + " " + this.client + "-" + this.token + " " + this.askedAt + " X";
		}

	}

}
