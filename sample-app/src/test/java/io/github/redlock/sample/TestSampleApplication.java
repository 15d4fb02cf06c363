package io.github.redlock.sample;

import org.springframework.boot.SpringApplication;

/**
 * Runs the sample for development on local redis-server nodes, with
 * {@code ./mvnw -pl sample-app -am spring-boot:test-run}: Spring Boot's development-time
 * services pattern. It lives in {@code src/test}, where {@code redlock-embedded} (test
 * scope) is on the classpath and its development mode starts five nodes, because
 * {@code redlock.nodes} is not set and this class sets
 * {@code redlock.embedded.enabled=true} (outside a test the development mode refuses to
 * start without it); {@code sample-app.jar} holds neither.
 */
public final class TestSampleApplication {

	private TestSampleApplication() {
	}

	public static void main(String[] args) {
		// outside a test, local nodes start only when asked for: here they are
		System.setProperty("redlock.embedded.enabled", System.getProperty("redlock.embedded.enabled", "true"));
		SpringApplication.from(SampleApplication::main).run(args);
	}

}
