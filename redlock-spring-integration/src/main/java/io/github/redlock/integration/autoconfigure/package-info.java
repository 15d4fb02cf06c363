/**
 * Spring Boot auto-configuration of the Spring Integration lock registry over the redlock
 * quorum.
 */
@NullMarked
package io.github.redlock.integration.autoconfigure;

import org.jspecify.annotations.NullMarked;
