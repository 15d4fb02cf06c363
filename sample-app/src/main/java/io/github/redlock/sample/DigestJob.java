package io.github.redlock.sample;

import java.time.Instant;

import io.github.redlock.aop.CurrentLease;
import io.github.redlock.annotation.DistributedLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A periodic digest that every instance triggers and one runs, under
 * {@code @DistributedLock} alone: an instance whose tick finds the lock held elsewhere
 * skips it quietly ({@code skipIfLocked}), and the lock stays held for at least
 * {@code sample.jobs.digest.hold-at-least} so that an instance ticking a little later
 * does not run it again in the same period.
 */
@Component
public class DigestJob {

	/** The job's name in {@link JobRuns} and its lock's key. */
	public static final String NAME = "sample-digest";

	private static final Log logger = LogFactory.getLog(DigestJob.class);

	private final JobRuns runs;

	private final String instance;

	public DigestJob(JobRuns runs, SampleProperties properties) {
		this.runs = runs;
		this.instance = properties.getInstance();
	}

	@Scheduled(fixedRateString = "${sample.jobs.digest.period:5s}")
	@DistributedLock(key = "'" + NAME + "'", skipIfLocked = true,
			holdAtLeast = "${sample.jobs.digest.hold-at-least:4s}")
	public void sendDigest() throws InterruptedException {
		long token = CurrentLease.get().fencingToken();
		Instant started = Instant.now();
		logger.info("Digest run " + (this.runs.count(NAME) + 1) + " on instance " + this.instance
				+ " under fencing token " + token);
		Thread.sleep(200); // gathering and sending the digest
		this.runs.record(NAME, new JobRuns.Run(this.instance, started, Instant.now(), token));
	}

}
