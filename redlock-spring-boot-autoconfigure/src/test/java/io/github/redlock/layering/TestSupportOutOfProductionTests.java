package io.github.redlock.layering;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.util.StringUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The production jar of the auto-configuration carries no test support (issue 25, item
 * 13): the factory that turns a {@code redlock-embedded} fleet into connection details
 * lives in {@code redlock-embedded-boot}, so that the jar never needs
 * {@code redlock-embedded}. The only connection details factories it registers are those
 * for Docker Compose services and Testcontainers containers, which Spring Boot 4 too
 * keeps beside the technology (as {@code spring-boot-data-redis} does), behind optional
 * dependencies.
 * <p>
 * Failed before the move: RedisFleetConnectionDetailsFactory named
 * io.github.redlock.embedded.RedisFleet and TestCertificates, and spring.factories
 * registered it as a ConnectionDetailsFactory.
 */
class TestSupportOutOfProductionTests {

	@Test
	void noProductionSourceNamesRedlockEmbedded() throws IOException {
		List<Path> naming;
		try (Stream<Path> files = Files.walk(Path.of("src", "main"))) {
			naming = files.filter(Files::isRegularFile).filter((file) -> {
				try {
					return Files.readString(file).contains("io.github.redlock.embedded");
				}
				catch (IOException ex) {
					throw new IllegalStateException(ex);
				}
			}).toList();
		}
		assertThat(naming).isEmpty();
	}

	@Test
	void theOnlyConnectionDetailsFactoriesAreForDockerComposeAndTestcontainers() throws IOException {
		Properties factories = new Properties();
		try (InputStream in = Files
			.newInputStream(Path.of("src", "main", "resources", "META-INF", "spring.factories"))) {
			factories.load(in);
		}
		String connectionDetailsFactory = "org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactory";
		assertThat(Map.copyOf(factories).keySet())
			.isSubsetOf(Set.of("org.springframework.boot.diagnostics.FailureAnalyzer",
					// the Spring Boot version check, which must run before any
					// configuration
					"org.springframework.context.ApplicationContextInitializer", connectionDetailsFactory,
					// the @ServiceConnection("redlock") fields of a test class
					"org.springframework.test.context.ContextCustomizerFactory",
					// the default level of Lettuce's reconnect lines
					// (RedlockLoggingDefaults)
					"org.springframework.boot.EnvironmentPostProcessor"));
		assertThat(factories.getProperty("org.springframework.boot.EnvironmentPostProcessor"))
			.isEqualToIgnoringWhitespace("io.github.redlock.autoconfigure.RedlockLoggingDefaults");
		assertThat(StringUtils.commaDelimitedListToStringArray(factories.getProperty(connectionDetailsFactory)))
			.isNotEmpty()
			.allSatisfy((factory) -> assertThat(factory.trim())
				.matches("io\\.github\\.redlock\\.(docker\\.compose|testcontainers)\\.[A-Z]\\w*"));
	}

}
