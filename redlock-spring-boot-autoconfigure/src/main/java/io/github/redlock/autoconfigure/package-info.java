/**
 * Spring Boot auto-configuration for distributed locks: {@code redlock.*} properties, the
 * {@link io.github.redlock.LockRegistry} bean and start-up validation.
 */
@NullMarked
package io.github.redlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
