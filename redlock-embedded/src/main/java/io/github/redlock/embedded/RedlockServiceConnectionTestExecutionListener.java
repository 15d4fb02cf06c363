package io.github.redlock.embedded;

import org.springframework.core.Ordered;
import org.springframework.test.annotation.DirtiesContext.HierarchyMode;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestExecutionListener;

/**
 * Closes the application context of a test class with a {@link RedlockServiceConnection}
 * fleet after the class, so that the fleet stops then rather than when the JVM exits: no
 * other class can use that context, since its cache key holds the field.
 *
 * @author redlock contributors
 */
class RedlockServiceConnectionTestExecutionListener implements TestExecutionListener, Ordered {

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void afterTestClass(TestContext testContext) {
		if (testContext.hasApplicationContext()
				&& !RedlockServiceConnectionContextCustomizerFactory.fields(testContext.getTestClass()).isEmpty()) {
			testContext.markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);
		}
	}

}
