package io.github.redlock.autoconfigure.endpoint;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code redlock} Actuator endpoint, prefix {@code redlock.endpoint}.
 *
 * @author redlock contributors
 */
@ConfigurationProperties("redlock.endpoint")
public class RedlockEndpointProperties {

	private final Release release = new Release();

	private final Events events = new Events();

	/**
	 * Returns the settings of the release operation.
	 * @return the settings
	 */
	public Release getRelease() {
		return this.release;
	}

	/**
	 * Returns the settings of the recent events.
	 * @return the settings
	 */
	public Events getEvents() {
		return this.events;
	}

	/**
	 * Settings of {@code DELETE /actuator/redlock/{key}}.
	 */
	public static class Release {

		/**
		 * Whether the endpoint may release the leases this instance holds on a key, for a
		 * holder that hangs: its work is told that it lost the lock but keeps running
		 * without it until it next checks.
		 */
		private boolean enabled;

		/**
		 * Returns whether the endpoint may release leases.
		 * @return whether it may
		 */
		public boolean isEnabled() {
			return this.enabled;
		}

		/**
		 * Sets whether the endpoint may release leases.
		 * @param enabled whether it may
		 */
		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Settings of the recent events the endpoint shows.
	 */
	public static class Events {

		/**
		 * Number of recent lock and node events kept for the endpoint, the oldest dropped
		 * first.
		 */
		private int capacity = 100;

		/**
		 * Returns how many events are kept.
		 * @return the number of events
		 */
		public int getCapacity() {
			return this.capacity;
		}

		/**
		 * Sets how many events are kept.
		 * @param capacity the number of events
		 */
		public void setCapacity(int capacity) {
			this.capacity = capacity;
		}

	}

}
