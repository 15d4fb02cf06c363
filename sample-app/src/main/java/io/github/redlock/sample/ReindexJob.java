package io.github.redlock.sample;

import java.time.Duration;

import io.github.redlock.Lease;
import io.github.redlock.aop.CurrentLease;
import io.github.redlock.annotation.DistributedLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Component;

/**
 * A long job under a short lease: the watchdog extends the 2s lease every 2/3s for as
 * long as the job runs, so one instance of the fleet runs it at a time.
 */
@Component
public class ReindexJob {

	private static final Log logger = LogFactory.getLog(ReindexJob.class);

	@DistributedLock(key = "'reindex'", ttl = "2s", waitTime = "0s")
	public Result run(Duration duration) throws InterruptedException {
		Lease lease = CurrentLease.get();
		long start = System.nanoTime();
		int checks = 0;
		boolean heldThroughout = true;
		while (System.nanoTime() - start < duration.toNanos()) {
			Thread.sleep(250); // a batch of work
			heldThroughout &= lease.isHeld();
			checks++;
		}
		logger.info("Reindex ran " + duration.toMillis() + "ms under a 2s lease, held throughout: " + heldThroughout);
		return new Result(duration.toMillis(), checks, heldThroughout, lease.fencingToken());
	}

	/**
	 * What the job saw.
	 *
	 * @param ranMillis how long it ran
	 * @param checks how often it looked at its lease
	 * @param heldThroughout whether the lease was held at every look
	 * @param fencingToken the lease's token
	 */
	public record Result(long ranMillis, int checks, boolean heldThroughout, long fencingToken) {
	}

}
