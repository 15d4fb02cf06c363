/**
 * The {@code redlock} Actuator endpoint: the state of every node, the recent lock and
 * node events, who holds one lock where, and, over the web when enabled, the release of a
 * hung holder's lease.
 */
@NullMarked
package io.github.redlock.endpoint;

import org.jspecify.annotations.NullMarked;
