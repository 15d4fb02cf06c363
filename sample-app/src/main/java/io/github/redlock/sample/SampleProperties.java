package io.github.redlock.sample;

import java.lang.management.ManagementFactory;
import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The sample's own settings, prefix {@code sample}. The job periods and minimum holds are
 * read by the jobs' annotations through {@code ${...}} placeholders whose defaults equal
 * the ones here ({@code SamplePropertiesTests} keeps them equal); this class gives them
 * IDE completion and lets {@code GET /demo/jobs} show them.
 */
@ConfigurationProperties("sample")
public class SampleProperties {

	/**
	 * Name of this instance in logs and in the demo endpoints; by default the JVM's
	 * process id and host.
	 */
	private String instance = ManagementFactory.getRuntimeMXBean().getName();

	/**
	 * How long a payment waits for its order's lock.
	 */
	private Duration paymentWait = Duration.ofSeconds(3);

	private final Jobs jobs = new Jobs();

	public String getInstance() {
		return this.instance;
	}

	public void setInstance(String instance) {
		this.instance = instance;
	}

	public Duration getPaymentWait() {
		return this.paymentWait;
	}

	public void setPaymentWait(Duration paymentWait) {
		this.paymentWait = paymentWait;
	}

	public Jobs getJobs() {
		return this.jobs;
	}

	/**
	 * The scheduled jobs.
	 */
	public static class Jobs {

		private final Digest digest = new Digest();

		private final Cleanup cleanup = new Cleanup();

		public Digest getDigest() {
			return this.digest;
		}

		public Cleanup getCleanup() {
			return this.cleanup;
		}

	}

	/**
	 * The digest job, locked with {@code @DistributedLock(skipIfLocked = true)}.
	 */
	public static class Digest {

		/**
		 * How often every instance triggers the digest job; one of them runs it.
		 */
		private Duration period = Duration.ofSeconds(5);

		/**
		 * Least time the digest job's lock stays held from its acquisition, so that an
		 * instance ticking a little later does not run the job again in the same period;
		 * a little below the period.
		 */
		private Duration holdAtLeast = Duration.ofSeconds(4);

		public Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(Duration period) {
			this.period = period;
		}

		public Duration getHoldAtLeast() {
			return this.holdAtLeast;
		}

		public void setHoldAtLeast(Duration holdAtLeast) {
			this.holdAtLeast = holdAtLeast;
		}

	}

	/**
	 * The cleanup job, locked with ShedLock's {@code @SchedulerLock}.
	 */
	public static class Cleanup {

		/**
		 * How often every instance triggers the cleanup job; one of them runs it.
		 */
		private Duration period = Duration.ofSeconds(5);

		/**
		 * ShedLock's lockAtLeastFor of the cleanup job: least time its lock stays held; a
		 * little below the period.
		 */
		private Duration lockAtLeastFor = Duration.ofSeconds(4);

		public Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(Duration period) {
			this.period = period;
		}

		public Duration getLockAtLeastFor() {
			return this.lockAtLeastFor;
		}

		public void setLockAtLeastFor(Duration lockAtLeastFor) {
			this.lockAtLeastFor = lockAtLeastFor;
		}

	}

}
