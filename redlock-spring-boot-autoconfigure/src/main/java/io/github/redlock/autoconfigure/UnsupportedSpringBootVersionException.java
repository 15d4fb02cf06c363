package io.github.redlock.autoconfigure;

import io.github.redlock.RedlockException;

/**
 * Thrown at start-up when the running Spring Boot is outside the range this starter
 * supports. Turned into a description and an action by
 * {@link UnsupportedSpringBootVersionFailureAnalyzer}.
 *
 * @author redlock contributors
 */
public class UnsupportedSpringBootVersionException extends RedlockException {

	private static final long serialVersionUID = 1L;

	private final String runningVersion;

	private final String supportedVersions;

	/**
	 * Creates an exception.
	 * @param runningVersion the version of the Spring Boot on the class path
	 * @param supportedVersions the range this starter supports
	 */
	public UnsupportedSpringBootVersionException(String runningVersion, String supportedVersions) {
		super(description(runningVersion, supportedVersions) + ". " + action(supportedVersions));
		this.runningVersion = runningVersion;
		this.supportedVersions = supportedVersions;
	}

	static String description(String runningVersion, String supportedVersions) {
		return "Spring Boot " + runningVersion + " is not supported by this redlock release, which needs Spring Boot "
				+ supportedVersions + ". Outside that range parts of the starter (its health indicator, metrics, "
				+ "observations, endpoint) can be missing without a word, or fail later without saying why";
	}

	static String action(String supportedVersions) {
		return "Upgrade Spring Boot to " + supportedVersions + ", or use a redlock release whose requirements"
				+ " (in its README) name your Spring Boot, if there is one. To start anyway, at your own risk, set "
				+ RedlockCompatibilityVerifier.ENABLED_PROPERTY + "=false.";
	}

	/**
	 * Returns the version of the Spring Boot on the class path.
	 * @return the running version
	 */
	public String getRunningVersion() {
		return this.runningVersion;
	}

	/**
	 * Returns the range of Spring Boot versions this starter supports.
	 * @return the supported range, such as {@code >=4.1.0 and <5.0.0}
	 */
	public String getSupportedVersions() {
		return this.supportedVersions;
	}

	/**
	 * Returns what is wrong.
	 * @return the description
	 */
	public String getDescription() {
		return description(this.runningVersion, this.supportedVersions);
	}

	/**
	 * Returns what to do about it.
	 * @return the action
	 */
	public String getAction() {
		return action(this.supportedVersions);
	}

}
