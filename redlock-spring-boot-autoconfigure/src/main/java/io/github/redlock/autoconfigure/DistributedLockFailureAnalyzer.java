package io.github.redlock.autoconfigure;

import io.github.redlock.aop.InvalidDistributedLockException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an {@link InvalidDistributedLockException} at start-up: which annotation
 * attribute is wrong and how to fix it.
 *
 * @author redlock contributors
 */
class DistributedLockFailureAnalyzer extends AbstractFailureAnalyzer<InvalidDistributedLockException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidDistributedLockException cause) {
		return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
	}

}
