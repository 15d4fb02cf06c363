package io.github.redlock.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Secrets set through the environment, as {@code /actuator/env} lists them from the
 * {@code systemEnvironment} property source (issue 25, item 7). Failed before the fix:
 * only {@code redlock.}-prefixed names were masked, so {@code REDLOCK_PASSWORD} and
 * {@code REDLOCK_NODES_0} were shown as set.
 */
class RedlockSanitizingFunctionTests {

	private final RedlockSanitizingFunction function = new RedlockSanitizingFunction();

	private final SystemEnvironmentPropertySource environment;

	RedlockSanitizingFunctionTests() {
		Map<String, Object> variables = new LinkedHashMap<>();
		this.environment = new SystemEnvironmentPropertySource(
				StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables);
	}

	private Object shown(String name, String value) {
		return this.function.apply(new SanitizableData(this.environment, name, value)).getValue();
	}

	@Test
	void passwordFromTheEnvironmentIsMasked() {
		assertThat(shown("REDLOCK_PASSWORD", "s3cret-pw")).isEqualTo(SanitizableData.SANITIZED_VALUE);
		assertThat(shown("redlock_password", "s3cret-pw")).isEqualTo(SanitizableData.SANITIZED_VALUE);
	}

	@Test
	void nodePasswordsFromTheEnvironmentAreMasked() {
		assertThat(shown("REDLOCK_NODES_0", "redis://app:s3cret-pw@10.0.0.1:6379"))
			.isEqualTo("redis://app:******@10.0.0.1:6379");
		assertThat(shown("REDLOCK_NODES", "redis://:a-pw@10.0.0.1:6379,rediss://b-pw@10.0.0.2:6380"))
			.isEqualTo("redis://:******@10.0.0.1:6379,rediss://******@10.0.0.2:6380");
	}

	@Test
	void listedNodesOfAPropertyAreMaskedOneByOne() {
		assertThat(
				this.function.apply(new SanitizableData(null, "redlock.nodes", "redis://:a-pw@h1:1,redis://:b-pw@h2:2"))
					.getValue())
			.isEqualTo("redis://:******@h1:1,redis://:******@h2:2");
	}

	@Test
	void clusterSeedPasswordsAreMaskedInEveryForm() {
		assertThat(shown("REDLOCK_CLUSTERS_0", "redis://app:a-pw@10.0.1.1:6379,redis://b-pw@10.0.1.2:6379"))
			.isEqualTo("redis://app:******@10.0.1.1:6379,redis://******@10.0.1.2:6379");
		assertThat(shown("REDLOCK_CLUSTERS_1_0", "rediss://:c-pw@10.0.2.1:6380"))
			.isEqualTo("rediss://:******@10.0.2.1:6380");
		// /actuator/env names a YAML item in full, /actuator/configprops relative to the
		// prefix and without a property source
		assertThat(this.function
			.apply(new SanitizableData(this.environment, "redlock.clusters[2][1]", "redis://:d-pw@h:1"))
			.getValue()).isEqualTo("redis://:******@h:1");
		assertThat(this.function.apply(new SanitizableData(null, "clusters[0][0]", "redis://:e-pw@h:1")).getValue())
			.isEqualTo("redis://:******@h:1");
	}

	@Test
	void otherVariablesAreLeftAlone() {
		assertThat(shown("REDLOCK_USERNAME", "app")).isEqualTo("app");
		assertThat(shown("REDLOCK_DEFAULT_TTL", "10s")).isEqualTo("10s");
		assertThat(shown("OTHER_PASSWORD", "x")).isEqualTo("x");
	}

}
