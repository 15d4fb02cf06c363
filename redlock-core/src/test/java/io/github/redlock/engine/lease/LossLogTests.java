package io.github.redlock.engine.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.github.redlock.LockLostException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LossLog}'s periods, on a clock the test moves: the first losses of a period are
 * logged one by one, the rest counted in one summary, and a loss that opens the next
 * period writes the summary of the last before its own line. The flood itself, on real
 * nodes, is {@code LostLeasesLogIntegrationTests}.
 */
class LossLogTests {

	private final AtomicLong now = new AtomicLong(1_000);

	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

	private final LossLog log = new LossLog(this.now::get, this.scheduler);

	private final List<String> lines = new ArrayList<>();

	private final Logger logger = Logger.getLogger(LeaseState.class.getName());

	private final Handler handler = new Handler() {

		@Override
		public void publish(LogRecord record) {
			synchronized (LossLogTests.this.lines) {
				LossLogTests.this.lines.add(record.getMessage());
			}
		}

		@Override
		public void flush() {
		}

		@Override
		public void close() {
		}

	};

	LossLogTests() {
		this.logger.addHandler(this.handler);
	}

	@AfterEach
	void stop() {
		this.logger.removeHandler(this.handler);
		this.scheduler.shutdownNow();
	}

	@Test
	void lossesBeyondAPeriodsLinesAreCountedInOneSummary() {
		lose(25, "a-");
		assertThat(lines()).hasSize(LossLog.LINES_PER_PERIOD).allMatch((line) -> line.contains(" was lost: "));
		this.log.flush();
		assertThat(lines()).hasSize(LossLog.LINES_PER_PERIOD + 1);
		assertThat(lines().get(LossLog.LINES_PER_PERIOD)).startsWith("15 more locks were lost within 10s")
			.contains("'a-10', 'a-11', 'a-12' and 12 others (the first: a test");
		this.log.flush();
		assertThat(lines()).hasSize(LossLog.LINES_PER_PERIOD + 1);
	}

	@Test
	void theLossThatOpensTheNextPeriodWritesTheLastOnesSummaryFirst() {
		lose(12, "a-");
		this.now.addAndGet(TimeUnit.SECONDS.toNanos(LossLog.PERIOD_SECONDS));
		lose(1, "b-");
		List<String> lines = lines();
		assertThat(lines).hasSize(LossLog.LINES_PER_PERIOD + 2);
		assertThat(lines.get(LossLog.LINES_PER_PERIOD)).startsWith("2 more locks were lost")
			.contains("'a-10', 'a-11' (the first");
		assertThat(lines.get(LossLog.LINES_PER_PERIOD + 1)).contains("'b-0' was lost");
		// a new period: its first losses are logged one by one again
		lose(9, "c-");
		assertThat(lines()).hasSize(LossLog.LINES_PER_PERIOD + 11);
		this.log.flush();
		assertThat(lines()).hasSize(LossLog.LINES_PER_PERIOD + 11);
	}

	private void lose(int count, String prefix) {
		for (int i = 0; i < count; i++) {
			this.log.lost(prefix + i, "a test", new LockLostException(prefix + i, "a test"));
		}
	}

	private List<String> lines() {
		synchronized (this.lines) {
			return List.copyOf(this.lines);
		}
	}

}
