package io.github.redlock.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.type.AnnotationMetadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The supported Spring Boot range is checked before the context refreshes (issue 38, item
 * 6): on Boot 3.5 the starter used to lock while health, metrics, observations and the
 * endpoint vanished without a word. The running version is simulated through the
 * verifier's version source; everything else is a real {@link SpringApplication} with the
 * module's {@code spring.factories}, so the failure analysis printed is the one a user
 * sees.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockCompatibilityVerifierTests {

	@Test
	void startUpOnSpringBoot35FailsWithAnAnalysisNamingTheVersionTheRangeAndTheFix(CapturedOutput output) {
		UnsupportedSpringBootVersionException failure = catchThrowableOfType(
				UnsupportedSpringBootVersionException.class,
				() -> application(BootFourOnlyConfiguration.class, "3.5.7").run());
		assertThat(failure).as("start-up failure").isNotNull();
		assertThat(failure.getRunningVersion()).isEqualTo("3.5.7");
		assertThat(failure.getSupportedVersions()).isEqualTo(RedlockCompatibilityVerifier.SUPPORTED_VERSIONS);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Spring Boot 3.5.7")
			.contains(RedlockCompatibilityVerifier.SUPPORTED_VERSIONS)
			.contains("Upgrade Spring Boot")
			.contains("redlock.compatibility-verifier.enabled=false")
			// the check ran before the context parsed a configuration that Boot 3.5
			// cannot load, which would otherwise have failed in a confusing way
			.doesNotContain(BootFourOnlyConfiguration.ABSENT_RESOURCE);
	}

	@Test
	void startUpOnTheNextMajorFailsToo(CapturedOutput output) {
		catchThrowableOfType(UnsupportedSpringBootVersionException.class,
				() -> application(EmptyConfiguration.class, "5.0.0-M1").run());
		assertThat(output).contains("Spring Boot 5.0.0-M1").contains(RedlockCompatibilityVerifier.SUPPORTED_VERSIONS);
	}

	@Test
	void startUpOnTheRunningSpringBootSucceeds() {
		try (ConfigurableApplicationContext context = application(EmptyConfiguration.class, null).run()) {
			assertThat(context.isActive()).isTrue();
		}
	}

	@Test
	void theVerifierIsRegisteredForEverySpringApplication() {
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(ApplicationContextInitializer.class))
			.hasAtLeastOneElementOfType(RedlockCompatibilityVerifier.class);
	}

	@Test
	void escapeHatchStartsAnUnsupportedVersionWithAWarning(CapturedOutput output) {
		SpringApplication application = application(EmptyConfiguration.class, "3.5.7");
		try (ConfigurableApplicationContext context = application
			.run("--" + RedlockCompatibilityVerifier.ENABLED_PROPERTY + "=false")) {
			assertThat(context.isActive()).isTrue();
		}
		assertThat(output).contains("Spring Boot 3.5.7").contains("redlock.compatibility-verifier.enabled=false");
	}

	@Test
	void withTheCheckOffTheSameStartUpFailsWithoutSayingWhy(CapturedOutput output) {
		RuntimeException failure = catchThrowableOfType(RuntimeException.class,
				() -> application(BootFourOnlyConfiguration.class, "3.5.7")
					.run("--" + RedlockCompatibilityVerifier.ENABLED_PROPERTY + "=false"));
		assertThat(failure).as("start-up failure")
			.isNotNull()
			.isNotInstanceOf(UnsupportedSpringBootVersionException.class);
		assertThat(output).contains(BootFourOnlyConfiguration.ABSENT_RESOURCE);
	}

	@ParameterizedTest
	@ValueSource(strings = { "4.1.0", "4.1.1", "4.1.0-M1", "4.1.2-SNAPSHOT", "4.2.0-M1", "4.9.10", "4.1" })
	void versionsInTheRangeAreSupported(String version) {
		assertThat(RedlockCompatibilityVerifier.isSupported(version)).isTrue();
	}

	@ParameterizedTest
	@ValueSource(strings = { "3.5.7", "4.0.8", "4.0.0", "2.7.18", "5.0.0", "5.0.0-M1", "10.1.0" })
	void versionsOutsideTheRangeAreNot(String version) {
		assertThat(RedlockCompatibilityVerifier.isSupported(version)).isFalse();
	}

	@Test
	void theRunningSpringBootIsSupported() {
		assertThat(RedlockCompatibilityVerifier.isSupported(SpringBootVersion.getVersion())).isTrue();
	}

	@Test
	void anUnreadableVersionStartsWithAWarning(CapturedOutput output) {
		try (ConfigurableApplicationContext context = application(EmptyConfiguration.class, "").run()) {
			assertThat(context.isActive()).isTrue();
		}
		assertThat(output).contains("Could not tell the Spring Boot version")
			.contains(RedlockCompatibilityVerifier.SUPPORTED_VERSIONS);
	}

	@Test
	void theReadmeStatesTheSupportedRange() throws Exception {
		String readme = Files.readString(Path.of("..", "README.md"));
		assertThat(readme).contains("- Spring Boot " + RedlockCompatibilityVerifier.SUPPORTED_VERSIONS + " ");
	}

	@Test
	void theProductionPageShowsTheAnalysisAsPrinted() throws Exception {
		String page = Files.readString(Path.of("..", "docs", "production.md"));
		UnsupportedSpringBootVersionException failure = new UnsupportedSpringBootVersionException("3.5.7",
				RedlockCompatibilityVerifier.SUPPORTED_VERSIONS);
		assertThat(page).contains("Spring Boot `" + RedlockCompatibilityVerifier.SUPPORTED_VERSIONS + "`")
			.contains("\n" + failure.getDescription() + "\n")
			.contains("\n" + failure.getAction() + "\n");
	}

	/**
	 * A Spring application whose verifier reads the given version, beside the one the
	 * module's {@code spring.factories} registers (which reads the real version);
	 * {@code null} keeps only the registered one.
	 */
	private static SpringApplication application(Class<?> configuration, String version) {
		SpringApplication application = new SpringApplication(configuration);
		application.setWebApplicationType(WebApplicationType.NONE);
		if (version != null) {
			application.addInitializers(new RedlockCompatibilityVerifier(() -> version));
		}
		return application;
	}

	@Configuration(proxyBeanMethods = false)
	static class EmptyConfiguration {

	}

	/**
	 * Stands for the starter's configuration on Boot 3.5: it imports a class that is not
	 * on the class path, so parsing it fails with a message that says nothing of
	 * versions.
	 */
	@Configuration(proxyBeanMethods = false)
	@Import(BootFourOnlyConfiguration.AbsentClassSelector.class)
	static class BootFourOnlyConfiguration {

		static final String ABSENT_CLASS = "org.springframework.boot.health.contributor.AbsentFromThisBoot";

		/** How the parser names the class it cannot read. */
		static final String ABSENT_RESOURCE = ABSENT_CLASS.replace('.', '/') + ".class";

		static class AbsentClassSelector implements ImportSelector {

			@Override
			public String[] selectImports(AnnotationMetadata metadata) {
				return new String[] { ABSENT_CLASS };
			}

		}

	}

}
