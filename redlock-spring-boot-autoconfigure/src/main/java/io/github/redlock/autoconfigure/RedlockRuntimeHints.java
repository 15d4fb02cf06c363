package io.github.redlock.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs of redlock-core, which knows nothing of Spring and so
 * registers nothing itself: the Lua files its scripts are read from at start-up. Listed
 * in {@code META-INF/spring/aot.factories}, so that the hints are there whether or not
 * the auto-configuration matched when the application was processed.
 *
 * @author redlock contributors
 */
final class RedlockRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("io/github/redlock/engine/node/*.lua");
	}

}
