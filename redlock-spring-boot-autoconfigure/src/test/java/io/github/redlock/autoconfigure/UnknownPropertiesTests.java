package io.github.redlock.autoconfigure;

import io.github.redlock.LockRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Typo'd {@code redlock.*} properties are named at start-up with the property they
 * probably meant (issue 41, item 2). Before, Spring Boot ignored them silently: the log
 * had no line naming {@code redlock.restart-gaurd}, {@code redlock.default-tll} or
 * {@code redlock.node}, and {@code redlock.node} only led to "No redlock nodes are
 * configured".
 */
@ExtendWith(OutputCaptureExtension.class)
class UnknownPropertiesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class))
		.withPropertyValues("redlock.connect-timeout=200ms");

	@Test
	void eachTypoIsNamedWithThePropertyItProbablyMeant(CapturedOutput output) {
		this.contextRunner.withPropertyValues(RedlockAutoConfigurationTests.NODES)
			.withPropertyValues("redlock.restart-gaurd=false", "redlock.default-tll=10s")
			.run((context) -> {
				assertThat(context).hasSingleBean(LockRegistry.class);
				assertThat(output).contains("Unknown redlock property 'redlock.restart-gaurd'")
					.contains("did you mean 'redlock.restart-guard'?")
					.contains("Unknown redlock property 'redlock.default-tll'")
					.contains("did you mean 'redlock.default-ttl'?");
			});
	}

	@Test
	void aMisspelledNodeListIsNamedOnceBeforeTheMissingNodesFailStartUp(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("redlock.node[0]=redis://127.0.0.1:1", "redlock.node[1]=redis://127.0.0.1:2")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(output).containsOnlyOnce("Unknown redlock property 'redlock.node'")
					.contains("did you mean 'redlock.nodes'?");
			});
	}

	@Test
	void knownPropertiesInEveryFormAreNotReported(CapturedOutput output) {
		this.contextRunner.withPropertyValues(RedlockAutoConfigurationTests.NODES)
			.withPropertyValues("redlock.restartGuard=false", "redlock.ssl.enabled=false",
					"redlock.web.problem-details.enabled=true", "redlock.embedded.enabled=false",
					"redlock.metrics.legacy-timers=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).doesNotContain("Unknown redlock property");
			});
	}

	@Test
	void failRefusesToStartNamingEveryUnknownProperty() {
		this.contextRunner.withPropertyValues(RedlockAutoConfigurationTests.NODES)
			.withPropertyValues("redlock.unknown-properties=fail", "redlock.restart-gaurd=false", "redlock.wibble=1")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRedlockConfigurationException.class)
				.hasMessageContaining("'redlock.restart-gaurd'")
				.hasMessageContaining("did you mean 'redlock.restart-guard'?")
				.hasMessageContaining("'redlock.wibble'")
				.hasMessageContaining("no redlock property is named so"));
	}

	@Test
	void ignoreSaysNothing(CapturedOutput output) {
		this.contextRunner.withPropertyValues(RedlockAutoConfigurationTests.NODES)
			.withPropertyValues("redlock.unknown-properties=ignore", "redlock.restart-gaurd=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).doesNotContain("Unknown redlock property");
			});
	}

	@Test
	void transposedLettersAreOneEdit() {
		assertThat(UnknownProperties.distance("redlock.default-tll", "redlock.default-ttl")).isEqualTo(1);
		assertThat(UnknownProperties.distance("gaurd", "guard")).isEqualTo(1);
		assertThat(UnknownProperties.distance("node", "nodes")).isEqualTo(1);
	}

}
