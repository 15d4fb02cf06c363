/**
 * Spring Boot auto-configuration of the Spring Integration lock registry over the redlock
 * quorum.
 */
package io.github.redlock.integration.autoconfigure;
