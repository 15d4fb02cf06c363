package io.github.redlock.autoconfigure;

import java.util.regex.Pattern;

import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;

/**
 * Masks the secrets of the {@code redlock.*} properties wherever Actuator shows
 * configuration ({@code /actuator/env}, {@code /actuator/configprops}), even with
 * {@code show-values=always}: {@code redlock.password} whole, and the password part of
 * every {@code redlock.nodes} URI ({@code redis://app:******@host:6379}; a lone userinfo
 * is a password to Lettuce, so {@code redis://******@host:6379}).
 *
 * @author redlock contributors
 */
final class RedlockSanitizingFunction implements SanitizingFunction {

	private static final Pattern NODES = Pattern.compile("^(redlock\\.)?nodes(\\[\\d+])?$");

	private static final Pattern PASSWORD = Pattern.compile("^(redlock\\.)?password$");

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
		if (NODES.matcher(key).matches() && value instanceof CharSequence uri) {
			return data.withValue(mask(uri.toString()));
		}
		return data;
	}

	private static boolean isRedlock(SanitizableData data, String key) {
		// /actuator/env names properties in full; /actuator/configprops relative to the
		// bean's prefix, with no property source and no word of which bean: there a
		// top-level "password" or "nodes" of any bean is masked, which only hides more
		return key.startsWith("redlock.") || (data.getPropertySource() == null && !key.contains("."));
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
