package io.github.redlock.embedded;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a {@code static} {@link RedisFleetExtension} field of a Spring test class the
 * source of the lock nodes of its application context, as Spring Boot's
 * {@code @ServiceConnection} does for a Testcontainers container: the context gets a
 * {@code RedlockConnectionDetails} bean with the fleet's nodes (and, for a TLS fleet, an
 * SSL bundle that trusts its CA and presents its client certificate), so no
 * {@code redlock.*} property is needed and the development mode starts no nodes of its
 * own.
 *
 * <pre class="code">
 * &#064;SpringBootTest
 * class PaymentTests {
 *
 *     &#064;RedlockServiceConnection
 *     &#064;RegisterExtension
 *     static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);
 *
 *     &#064;Test
 *     void paysWithANodeDown() {
 *         fleet.node(0).kill();
 *         ...
 *     }
 * }
 * </pre>
 * <p>
 * Each test class gets a context of its own (the field is part of the context's cache
 * key), which is closed after the class, and the fleet stops with it. With
 * {@code @RegisterExtension} as well, the fleet is also healed after each test (faults
 * undone, keys deleted); without it, the context starts the fleet itself. Unless
 * {@code redlock.restart-guard} is set, it is turned off for the context, since the nodes
 * start empty; the log says so.
 *
 * @author redlock contributors
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RedlockServiceConnection {

}
