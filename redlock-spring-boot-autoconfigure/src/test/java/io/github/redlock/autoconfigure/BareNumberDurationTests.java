package io.github.redlock.autoconfigure;

import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.aop.InvalidDistributedLockException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A duration written as a bare number is read as milliseconds by Spring Boot: a message
 * about such a duration says so (issue 26: {@code redlock.default-ttl=30} was reported as
 * "node-timeout 100ms is not well below default-ttl 30ms" and nothing more). Failed
 * before the messages said it.
 */
class BareNumberDurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
		.withPropertyValues(RedlockAutoConfigurationTests.NODES);

	@Test
	void aTtlGivenAsABareNumberIsSaidToBeReadAsMilliseconds() {
		this.contextRunner.withPropertyValues("redlock.default-ttl=30").run((context) -> {
			assertThat(context).hasFailed();
			InvalidRedlockConfigurationException ex = findInvalid(context.getStartupFailure());
			assertThat(ex.getDescription()).contains("redlock.default-ttl 30ms");
			assertThat(ex.getAction()).contains("A bare number in a duration property is read as milliseconds")
				.contains("30s");
		});
	}

	@Test
	void anAnnotationTtlGivenAsABareNumberIsSaidToBeReadAsMilliseconds() {
		this.contextRunner.withUserConfiguration(BareTtl.class).run((context) -> {
			assertThat(context).hasFailed();
			InvalidDistributedLockException ex = find(InvalidDistributedLockException.class,
					context.getStartupFailure());
			assertThat(ex.getDescription()).contains("attribute ttl \"2\"");
			assertThat(ex.getAction()).contains("A bare number is read as milliseconds").contains("\"2s\"");
		});
	}

	@Test
	void aMessageWithoutADurationSaysNothingOfMilliseconds() {
		this.contextRunner.withPropertyValues("redlock.drift-factor=0.7").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(findInvalid(context.getStartupFailure()).getAction()).doesNotContain("milliseconds");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class BareTtl {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	public static class Jobs {

		// 2 ms, which no lock can be valid for (30 ms was refused too while the shortest
		// TTL was three node timeouts; it is a valid TTL now)
		@DistributedLock(key = "'nightly'", ttl = "2")
		public void nightly() {
		}

	}

	private static InvalidRedlockConfigurationException findInvalid(Throwable failure) {
		return find(InvalidRedlockConfigurationException.class, failure);
	}

	private static <T extends Throwable> T find(Class<T> type, Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		throw new AssertionError("no " + type.getSimpleName() + " in " + failure);
	}

}
