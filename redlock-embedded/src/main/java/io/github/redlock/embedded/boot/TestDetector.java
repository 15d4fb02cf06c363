package io.github.redlock.embedded.boot;

/**
 * Tells whether the current thread runs a test, by the test frameworks on its stack, as
 * Spring Boot's DevTools tells whether to restart.
 *
 * @author redlock contributors
 */
final class TestDetector {

	private static final String[] TEST_FRAMES = { "org.junit.platform.", "org.junit.runners.", "org.junit.jupiter.",
			"org.testng.", "org.springframework.boot.test.", "org.springframework.test.", "cucumber.runtime.",
			"io.cucumber.", "org.spockframework." };

	private TestDetector() {
	}

	static boolean inTest() {
		for (StackTraceElement frame : Thread.currentThread().getStackTrace()) {
			for (String prefix : TEST_FRAMES) {
				if (frame.getClassName().startsWith(prefix)) {
					return true;
				}
			}
		}
		return false;
	}

}
