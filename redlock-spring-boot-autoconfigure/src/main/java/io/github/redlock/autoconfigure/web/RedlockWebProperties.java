package io.github.redlock.autoconfigure.web;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Web settings of redlock, prefix {@code redlock.web}.
 *
 * @author redlock contributors
 */
@ConfigurationProperties("redlock.web")
public class RedlockWebProperties {

	private final ProblemDetails problemDetails = new ProblemDetails();

	/**
	 * Returns the settings of the problem-detail answers.
	 * @return the settings
	 */
	public ProblemDetails getProblemDetails() {
		return this.problemDetails;
	}

	/**
	 * Settings of the problem-detail answers to refused locks.
	 */
	public static class ProblemDetails {

		/**
		 * Whether a web request whose lock is refused is answered with a problem detail:
		 * 409 when another owner holds the lock, 503 when too few nodes are usable.
		 */
		private boolean enabled = true;

		/**
		 * Returns whether refused locks are answered with a problem detail.
		 * @return whether they are
		 */
		public boolean isEnabled() {
			return this.enabled;
		}

		/**
		 * Sets whether refused locks are answered with a problem detail.
		 * @param enabled whether they are
		 */
		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

}
