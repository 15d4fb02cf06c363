package io.github.redlock.embedded.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an {@link EmbeddedNodesRefusedException}: what is missing, and the three ways
 * out.
 *
 * @author redlock contributors
 */
class EmbeddedNodesFailureAnalyzer extends AbstractFailureAnalyzer<EmbeddedNodesRefusedException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, EmbeddedNodesRefusedException cause) {
		return new FailureAnalysis(cause.getMessage() + ".",
				"In production, set redlock.nodes (such as the REDLOCK_NODES_0, REDLOCK_NODES_1 and REDLOCK_NODES_2"
						+ " environment variables) to 3 or 5 independent Redis masters, and give redlock-embedded the"
						+ " test scope so that it stays out of the application. To run local nodes on purpose (for"
						+ " development, as with spring-boot:test-run), set redlock.embedded.enabled=true.",
				cause);
	}

}
