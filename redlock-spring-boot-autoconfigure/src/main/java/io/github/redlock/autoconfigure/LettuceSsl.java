package io.github.redlock.autoconfigure;

import io.lettuce.core.SslOptions;

import org.springframework.boot.ssl.SslBundle;

/**
 * Lettuce's TLS options from a Spring Boot SSL bundle: its trust material, its key and
 * certificate (for mutual TLS), and its protocols and ciphers.
 *
 * @author redlock contributors
 */
final class LettuceSsl {

	private LettuceSsl() {
	}

	static SslOptions options(SslBundle bundle) {
		SslOptions.Builder options = SslOptions.builder()
			.jdkSslProvider()
			.keyManager(bundle.getManagers().getKeyManagerFactory())
			.trustManager(bundle.getManagers().getTrustManagerFactory());
		org.springframework.boot.ssl.SslOptions bundleOptions = bundle.getOptions();
		if (bundleOptions.getCiphers() != null) {
			options.cipherSuites(bundleOptions.getCiphers());
		}
		if (bundleOptions.getEnabledProtocols() != null) {
			options.protocols(bundleOptions.getEnabledProtocols());
		}
		return options.build();
	}

}
