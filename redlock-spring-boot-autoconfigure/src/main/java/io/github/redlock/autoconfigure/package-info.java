/**
 * Spring Boot auto-configuration for redlock. The properties, the {@code LockRegistry}
 * bean and {@code @DistributedLock} arrive here with the auto-configuration work; this
 * module holds only the build wiring for now.
 */
package io.github.redlock.autoconfigure;
