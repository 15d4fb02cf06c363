package io.github.redlock.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redlock.Durations;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * What the scheduled jobs and the leader election look like from this instance: start a
 * second instance on the same nodes and watch the runs and the leadership move.
 */
@RestController
public class OperationsController {

	private final JobRuns runs;

	private final Leadership leadership;

	private final SampleProperties properties;

	public OperationsController(JobRuns runs, Leadership leadership, SampleProperties properties) {
		this.runs = runs;
		this.leadership = leadership;
		this.properties = properties;
	}

	/**
	 * Per job: how it is locked, its period, how often it ran on this instance, and its
	 * last run here.
	 */
	@GetMapping("/demo/jobs")
	public Jobs jobs() {
		SampleProperties.Jobs jobs = this.properties.getJobs();
		Map<String, Job> report = new LinkedHashMap<>();
		report.put(DigestJob.NAME,
				job("@DistributedLock(skipIfLocked = true, holdAtLeast = "
						+ Durations.format(jobs.getDigest().getHoldAtLeast()) + ")", jobs.getDigest().getPeriod(),
						DigestJob.NAME));
		report.put(CleanupJob.NAME,
				job("@SchedulerLock(lockAtMostFor = 10m, lockAtLeastFor = "
						+ Durations.format(jobs.getCleanup().getLockAtLeastFor()) + ")", jobs.getCleanup().getPeriod(),
						CleanupJob.NAME));
		return new Jobs(this.properties.getInstance(), report);
	}

	private Job job(String lock, Duration period, String name) {
		List<JobRuns.Run> latest = this.runs.runs(name);
		JobRuns.Run last = latest.isEmpty() ? null : latest.get(latest.size() - 1);
		return new Job(lock, period, this.runs.count(name), (last != null) ? last.started() : null,
				(last != null) ? last.fencingToken() : null);
	}

	/**
	 * Whether this instance leads, since when, and the leader's fencing token.
	 */
	@GetMapping("/demo/leader")
	public Leadership.Status leader() {
		return this.leadership.status();
	}

	/**
	 * The jobs as this instance sees them.
	 *
	 * @param instance this instance
	 * @param jobs each job by its lock's name
	 */
	public record Jobs(String instance, Map<String, Job> jobs) {
	}

	/**
	 * One job on this instance.
	 *
	 * @param lock how the job is locked
	 * @param period how often every instance triggers it
	 * @param runsHere how many times it ran on this instance
	 * @param lastRunHere when it last started on this instance
	 * @param lastFencingToken the fencing token of that run, where the lock gives one
	 */
	public record Job(String lock, Duration period, int runsHere, Instant lastRunHere, Long lastFencingToken) {
	}

}
