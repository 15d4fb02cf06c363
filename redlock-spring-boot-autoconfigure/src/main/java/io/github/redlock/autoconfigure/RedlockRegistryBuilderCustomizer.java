package io.github.redlock.autoconfigure;

import io.github.redlock.engine.RedlockRegistry;

/**
 * Customizes the auto-configured {@link RedlockRegistry} before it is built, after the
 * {@code redlock.*} properties have been applied. Applied in order.
 *
 * @author redlock contributors
 */
@FunctionalInterface
public interface RedlockRegistryBuilderCustomizer {

	/**
	 * Customizes the builder.
	 * @param builder the builder
	 */
	void customize(RedlockRegistry.Builder builder);

}
