package io.github.redlock.engine.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.engine.lease.RedlockLease.ExtendOutcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RenewalWindow}'s bound and how it moves, with extensions the test decides: at
 * most the limit sent and undecided, the rest sent in order as room comes; the limit
 * halves on a timed-out renewal once per window's worth sent, grows by one per window's
 * worth decided calmly, and stays between its least and its most. That the bound keeps a
 * burst of renewals from timing out on real nodes is
 * {@code RenewalBurstIntegrationTests}; what shrinking buys on a machine short of CPU,
 * {@code HeldLeasesBenchmark} under load (docs/benchmarks.md).
 */
class RenewalWindowTests {

	private final RenewalWindow window = new RenewalWindow();

	/** The extensions sent, in the order sent, each decided by the test. */
	private final List<CompletableFuture<ExtendOutcome>> sent = new ArrayList<>();

	@Test
	void sendsAtMostTheLimitAndTheNextAsEachIsDecided() {
		List<CompletableFuture<ExtendOutcome>> outcomes = renew(RenewalWindow.MOST_UNDECIDED + 3);
		assertThat(this.sent).hasSize(RenewalWindow.MOST_UNDECIDED);
		calm(0);
		assertThat(outcomes.get(0)).isCompletedWithValueMatching(ExtendOutcome::extended);
		assertThat(this.sent).hasSize(RenewalWindow.MOST_UNDECIDED + 1);
		calm(1);
		calm(2);
		assertThat(this.sent).hasSize(RenewalWindow.MOST_UNDECIDED + 3);
		assertThat(this.window.limit()).isEqualTo(RenewalWindow.MOST_UNDECIDED);
	}

	@Test
	void halvesOncePerWindowOfTimeoutsAndNotBelowTheLeast() {
		renew(10_000);
		timedOut(0);
		assertThat(this.window.limit()).isEqualTo(RenewalWindow.MOST_UNDECIDED / 2);
		// nothing more is sent until fewer than the new limit are undecided
		assertThat(this.sent).hasSize(RenewalWindow.MOST_UNDECIDED);
		while (true) {
			int limit = this.window.limit();
			int boundary = this.sent.size();
			// sent before it shrank: the same window's timeouts shrink it once
			for (int i = 0; i < boundary; i++) {
				if (!this.sent.get(i).isDone()) {
					timedOut(i);
				}
			}
			assertThat(this.window.limit()).isEqualTo(limit);
			assertThat(this.sent).hasSize(boundary + limit);
			// one sent after it shrank times out: it halves again, down to the least
			timedOut(boundary);
			if (limit == RenewalWindow.LEAST_UNDECIDED) {
				assertThat(this.window.limit()).isEqualTo(RenewalWindow.LEAST_UNDECIDED);
				return;
			}
			assertThat(this.window.limit()).isEqualTo(limit / 2);
		}
	}

	@Test
	void growsByOnePerWindowDecidedCalmlyUpToTheMost() {
		renew(RenewalWindow.MOST_UNDECIDED);
		timedOut(0);
		int limit = this.window.limit();
		assertThat(limit).isEqualTo(RenewalWindow.MOST_UNDECIDED / 2);
		renew(limit * 3);
		int decided = 1;
		for (int i = 0; i < limit - 1; i++) {
			calm(decided++);
		}
		assertThat(this.window.limit()).isEqualTo(limit);
		calm(decided++);
		assertThat(this.window.limit()).isEqualTo(limit + 1);
		// decide everything sent, calmly, until the window is back at its most
		while (this.window.limit() < RenewalWindow.MOST_UNDECIDED) {
			if (decided == this.sent.size()) {
				renew(RenewalWindow.MOST_UNDECIDED);
			}
			calm(decided++);
		}
		assertThat(this.window.limit()).isEqualTo(RenewalWindow.MOST_UNDECIDED);
		renew(RenewalWindow.MOST_UNDECIDED * 2);
		while (decided < this.sent.size()) {
			calm(decided++);
		}
		assertThat(this.window.limit()).isEqualTo(RenewalWindow.MOST_UNDECIDED);
	}

	private List<CompletableFuture<ExtendOutcome>> renew(int count) {
		List<CompletableFuture<ExtendOutcome>> outcomes = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			outcomes.add(this.window.renew(() -> {
				CompletableFuture<ExtendOutcome> extension = new CompletableFuture<>();
				this.sent.add(extension);
				return extension;
			}));
		}
		return outcomes;
	}

	private void calm(int index) {
		this.sent.get(index).complete(new ExtendOutcome(true, 5, null));
	}

	private void timedOut(int index) {
		this.sent.get(index).complete(new ExtendOutcome(false, 2, "timed out", true));
	}

}
