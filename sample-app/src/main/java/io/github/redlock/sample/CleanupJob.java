package io.github.redlock.sample;

import java.time.Instant;

import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A periodic cleanup written for ShedLock: {@code @SchedulerLock} with the
 * auto-configured {@code RedlockLockProvider}, so its lock is held on the quorum.
 * {@code lockAtMostFor} of {@code 10m} is above {@code redlock.max-ttl}: the watchdog
 * keeps the lock up to it while the job runs. {@code lockAtLeastFor} keeps an instance
 * ticking a little later from running it again in the same period.
 */
@Component
public class CleanupJob {

	/**
	 * The job's name in {@link JobRuns}, and its ShedLock lock name (the registry key).
	 */
	public static final String NAME = "sample-cleanup";

	private static final Log logger = LogFactory.getLog(CleanupJob.class);

	private final JobRuns runs;

	private final String instance;

	public CleanupJob(JobRuns runs, SampleProperties properties) {
		this.runs = runs;
		this.instance = properties.getInstance();
	}

	@Scheduled(fixedRateString = "${sample.jobs.cleanup.period:5s}")
	@SchedulerLock(name = NAME, lockAtMostFor = "10m", lockAtLeastFor = "${sample.jobs.cleanup.lock-at-least-for:4s}")
	public void cleanUp() throws InterruptedException {
		Instant started = Instant.now();
		logger.info("Cleanup run " + (this.runs.count(NAME) + 1) + " on instance " + this.instance
				+ " under ShedLock lock '" + NAME + "' (ShedLock gives no fencing token)");
		Thread.sleep(200); // deleting what expired
		this.runs.record(NAME, new JobRuns.Run(this.instance, started, Instant.now(), null));
	}

}
