package io.github.redlock.sample;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;

/**
 * What the scheduled jobs did on this instance: every run's start, end and fencing token,
 * the latest {@value #KEPT} of each job kept. {@code GET /demo/jobs} shows it; another
 * instance keeps its own.
 */
@Component
public class JobRuns {

	static final int KEPT = 200;

	private final Map<String, History> jobs = new ConcurrentHashMap<>();

	/**
	 * Records a finished run.
	 * @param job the job's name
	 * @param run the run
	 */
	public void record(String job, Run run) {
		this.jobs.computeIfAbsent(job, (name) -> new History()).add(run);
	}

	/**
	 * Returns the latest runs of a job on this instance, oldest first.
	 * @param job the job's name
	 * @return the runs
	 */
	public List<Run> runs(String job) {
		History history = this.jobs.get(job);
		return (history != null) ? history.latest() : List.of();
	}

	/**
	 * Returns how many times a job ran on this instance.
	 * @param job the job's name
	 * @return the number of runs
	 */
	public int count(String job) {
		History history = this.jobs.get(job);
		return (history != null) ? history.count() : 0;
	}

	private static final class History {

		private final Deque<Run> latest = new ArrayDeque<>();

		private int count;

		synchronized void add(Run run) {
			this.count++;
			this.latest.addLast(run);
			if (this.latest.size() > KEPT) {
				this.latest.removeFirst();
			}
		}

		synchronized List<Run> latest() {
			return List.copyOf(this.latest);
		}

		synchronized int count() {
			return this.count;
		}

	}

	/**
	 * One run of a job.
	 *
	 * @param instance the instance that ran it
	 * @param started when it started, under its lock
	 * @param ended when it ended, before its lock was released
	 * @param fencingToken the lock's fencing token, or {@code null} where the lock gives
	 * none (ShedLock)
	 */
	public record Run(String instance, Instant started, Instant ended, Long fencingToken) {
	}

}
