package io.github.redlock.autoconfigure;

import java.util.regex.Pattern;

import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;

/**
 * Masks the secrets of the {@code redlock.*} properties wherever Actuator shows
 * configuration ({@code /actuator/env}, {@code /actuator/configprops}), even with
 * {@code show-values=always}, whether set as properties or as environment variables
 * ({@code REDLOCK_PASSWORD}, {@code REDLOCK_NODES_0}, {@code REDLOCK_CLUSTERS_0}):
 * {@code redlock.password} whole, and the password part of every {@code redlock.nodes}
 * and {@code redlock.clusters} URI ({@code redis://app:******@host:6379}; a lone userinfo
 * is a password to Lettuce, so {@code redis://******@host:6379}).
 *
 * @author redlock contributors
 */
final class RedlockSanitizingFunction implements SanitizingFunction {

	// redlock.nodes[0] as a property, REDLOCK_NODES_0 as an environment variable
	private static final Pattern NODES = Pattern.compile("^(redlock[._])?nodes(\\[\\d+]|_\\d+)?$");

	// redlock.clusters[0][1] (a YAML list per cluster), redlock.clusters[0] (seeds
	// comma-separated), REDLOCK_CLUSTERS_0_1
	private static final Pattern CLUSTERS = Pattern.compile("^(redlock[._])?clusters(\\[\\d+]|_\\d+){0,2}$");

	private static final Pattern PASSWORD = Pattern.compile("^(redlock[._])?password$");

	@Override
	public SanitizableData apply(SanitizableData data) {
		Object value = data.getValue();
		if (value == null) {
			return data;
		}
		String key = data.getLowerCaseKey();
		if (!isRedlock(data, key)) {
			return data;
		}
		if (PASSWORD.matcher(key).matches()) {
			return data.withSanitizedValue();
		}
		if ((NODES.matcher(key).matches() || CLUSTERS.matcher(key).matches()) && value instanceof CharSequence uris) {
			return data.withValue(maskAll(uris.toString()));
		}
		return data;
	}

	private static boolean isRedlock(SanitizableData data, String key) {
		// /actuator/env names properties in full; /actuator/configprops relative to the
		// bean's prefix, with no property source and no word of which bean: there a
		// top-level "password", "nodes" or "clusters" of any bean is masked, which only
		// hides more; an environment variable (REDLOCK_PASSWORD) is listed under its own
		// name
		return key.startsWith("redlock.") || key.startsWith("redlock_")
				|| (data.getPropertySource() == null && !key.contains("."));
	}

	/**
	 * Masks the password in each URI of a comma-separated list.
	 */
	private static String maskAll(String uris) {
		StringBuilder masked = new StringBuilder();
		for (String uri : uris.split(",", -1)) {
			masked.append((masked.length() > 0) ? "," : "").append(mask(uri));
		}
		return masked.toString();
	}

	/**
	 * Masks the password in a node URI, keeping a user name, the host and the rest.
	 * @param uri the URI as configured
	 * @return the URI with its password masked
	 */
	static String mask(String uri) {
		int scheme = uri.indexOf("://");
		int start = (scheme >= 0) ? scheme + 3 : 0;
		int at = uri.lastIndexOf('@');
		if (at < start) {
			return uri;
		}
		String userInfo = uri.substring(start, at);
		int colon = userInfo.indexOf(':');
		String masked = (colon >= 0) ? userInfo.substring(0, colon + 1) + SanitizableData.SANITIZED_VALUE
				: SanitizableData.SANITIZED_VALUE;
		return uri.substring(0, start) + masked + uri.substring(at);
	}

}
