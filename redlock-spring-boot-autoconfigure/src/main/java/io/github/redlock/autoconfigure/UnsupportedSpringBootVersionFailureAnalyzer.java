package io.github.redlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an {@link UnsupportedSpringBootVersionException} at start-up: the running
 * Spring Boot, the supported range and how to get into it. Uses only Spring Boot types
 * that Boot 3 has too, since it must load on the versions it refuses.
 *
 * @author redlock contributors
 */
class UnsupportedSpringBootVersionFailureAnalyzer
		extends AbstractFailureAnalyzer<UnsupportedSpringBootVersionException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedSpringBootVersionException cause) {
		return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
	}

}
