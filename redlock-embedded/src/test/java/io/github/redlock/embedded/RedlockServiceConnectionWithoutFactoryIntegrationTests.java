package io.github.redlock.embedded;

import java.lang.reflect.Field;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.support.GenericApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Without {@code redlock-embedded-boot} (as on this module's classpath), a
 * {@code @RedlockServiceConnection} fleet has no connection details factory: the test's
 * context fails saying which artifact to add, and the fleet it started is stopped.
 */
class RedlockServiceConnectionWithoutFactoryIntegrationTests {

	@RedlockServiceConnection
	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

	@Test
	void aFleetWithoutItsFactoryIsRefusedNamingTheArtifactToAdd() throws Exception {
		Field field = getClass().getDeclaredField("fleet");
		RedlockServiceConnectionContextCustomizer customizer = new RedlockServiceConnectionContextCustomizer(field,
				fleet);
		RedisNode node = fleet.node(0);
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			assertThatIllegalStateException().isThrownBy(() -> customizer.customizeContext(context, null))
				.withMessageContaining("RedlockServiceConnectionWithoutFactoryIntegrationTests.fleet")
				.withMessageContaining("io.github.redlock:redlock-embedded-boot at test scope");
		}
		assertThat(node.isRunning()).as("the fleet's node, stopped with the refusal").isFalse();
	}

}
