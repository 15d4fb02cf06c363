package io.github.redlock.autoconfigure;

import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.Ordered;

/**
 * Refuses to start an application whose Spring Boot is outside the range this starter
 * supports, unless {@value #ENABLED_PROPERTY} is {@code false}.
 * <p>
 * Invariants (owned here):
 * <ul>
 * <li>The supported range is declared once, by {@link #SUPPORTED_VERSIONS} and the two
 * bounds it is made of; the README's requirements state the same text.</li>
 * <li>A {@link org.springframework.boot.SpringApplication} on a readable version outside
 * the range fails before its context refreshes, with an
 * {@link UnsupportedSpringBootVersionException}.</li>
 * </ul>
 * <p>
 * An {@link ApplicationContextInitializer} registered in {@code spring.factories}, not an
 * auto-configuration: it runs once the environment is ready (so the switch can come from
 * any property source) but before any configuration class is parsed, and on Boot 3 an
 * auto-configuration of this starter either backs off in silence (its conditions name
 * Boot 4 modules) or cannot be read at all. Nor an {@code EnvironmentPostProcessor},
 * whose interface moved package in Boot 4. For the same reason this class and the
 * exception it throws use only types that Boot 3 and Spring Framework 6 have too.
 * Contexts built without a {@code SpringApplication} (an
 * {@code ApplicationContextRunner}) are not checked.
 *
 * @author redlock contributors
 */
final class RedlockCompatibilityVerifier
		implements ApplicationContextInitializer<ConfigurableApplicationContext>, Ordered {

	/**
	 * Property that turns the check off.
	 */
	static final String ENABLED_PROPERTY = "redlock.compatibility-verifier.enabled";

	/**
	 * Lowest supported Spring Boot, as major and minor. Boot 4.0 has every type the
	 * starter uses, but manages Lettuce 6.8 and Micrometer 1.16, which the engine and the
	 * observations were never built or tested against; 4.1 manages Lettuce 7.
	 */
	private static final int[] LOWEST = { 4, 1 };

	/**
	 * First unsupported major: Spring Boot removes what it deprecated at a major.
	 */
	private static final int NEXT_MAJOR = 5;

	/**
	 * The supported range in the notation of Spring Initializr's compatibility ranges.
	 */
	static final String SUPPORTED_VERSIONS = ">=" + LOWEST[0] + "." + LOWEST[1] + ".0 and <" + NEXT_MAJOR + ".0.0";

	private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)(?:\\.\\d+)?(?:[-.].*)?$");

	private static final Log logger = LogFactory.getLog(RedlockCompatibilityVerifier.class);

	private final Supplier<String> runningVersion;

	/**
	 * Creates a verifier of the Spring Boot on the class path.
	 */
	public RedlockCompatibilityVerifier() {
		this(SpringBootVersion::getVersion);
	}

	RedlockCompatibilityVerifier(Supplier<String> runningVersion) {
		this.runningVersion = runningVersion;
	}

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		String version = this.runningVersion.get();
		if (version == null || !VERSION.matcher(version).matches()) {
			logger.warn("Could not tell the Spring Boot version (read '" + version + "'); redlock supports Spring Boot "
					+ SUPPORTED_VERSIONS + " and starts without checking");
			return;
		}
		if (isSupported(version)) {
			return;
		}
		if (context.getEnvironment().getProperty(ENABLED_PROPERTY, Boolean.class, true)) {
			throw new UnsupportedSpringBootVersionException(version, SUPPORTED_VERSIONS);
		}
		logger.warn(UnsupportedSpringBootVersionException.description(version, SUPPORTED_VERSIONS)
				+ "; starting anyway, as " + ENABLED_PROPERTY + "=false");
	}

	/**
	 * Whether a version is in the supported range. A pre-release counts as the release it
	 * leads to: {@code 4.1.0-M1} is supported, {@code 5.0.0-M1} is not.
	 * @param version a version such as {@code 4.1.1}
	 * @return whether it is supported; {@code false} for a version that cannot be read
	 */
	static boolean isSupported(String version) {
		Matcher matcher = VERSION.matcher(version);
		if (!matcher.matches()) {
			return false;
		}
		int major = Integer.parseInt(matcher.group(1));
		int minor = Integer.parseInt(matcher.group(2));
		return major < NEXT_MAJOR && (major > LOWEST[0] || (major == LOWEST[0] && minor >= LOWEST[1]));
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
