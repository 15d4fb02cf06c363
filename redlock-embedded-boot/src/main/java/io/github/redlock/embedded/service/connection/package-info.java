/**
 * Spring Boot service connections for {@code redlock-embedded} fleets: the connection
 * details factory behind a test's {@code @RedlockServiceConnection}. Test support, kept
 * out of the auto-configuration's jar.
 */
@NullMarked
package io.github.redlock.embedded.service.connection;

import org.jspecify.annotations.NullMarked;
