package io.github.redlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an {@link InvalidRedlockConfigurationException} at start-up: which property is
 * wrong and how to fix it.
 *
 * @author redlock contributors
 */
class RedlockConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRedlockConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidRedlockConfigurationException cause) {
		return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
	}

}
