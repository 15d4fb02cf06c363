package io.github.redlock.autoconfigure;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints a native image of an application needs for what redlock-core reads as
 * resources, registered the way Spring finds them during AOT processing (the registrars
 * of {@code META-INF/spring/aot.factories}).
 */
class RedlockRuntimeHintsTests {

	static RuntimeHints registeredHints() {
		RuntimeHints hints = new RuntimeHints();
		ClassLoader classLoader = RedlockRuntimeHintsTests.class.getClassLoader();
		AotServices.factories(classLoader)
			.load(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(hints, classLoader));
		return hints;
	}

	@Test
	void everyLuaFileOfTheEngineIsARegisteredResource() throws IOException {
		RuntimeHints hints = registeredHints();
		Resource[] files = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/redlock/engine/node/*.lua");
		assertThat(files).hasSizeGreaterThanOrEqualTo(5);
		for (Resource file : files) {
			assertThat(RuntimeHintsPredicates.resource()
				.forResource("io/github/redlock/engine/node/" + file.getFilename())).as(file.getFilename())
				.accepts(hints);
		}
	}

}
