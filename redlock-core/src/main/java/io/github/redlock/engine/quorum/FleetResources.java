package io.github.redlock.engine.quorum;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redlock.engine.node.WriteCoalescing;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The Lettuce resources a fleet's clients share: the application's, a copy of them that
 * adds {@link WriteCoalescing}, or the fleet's own; and whether closing the fleet shuts
 * them down (its own, or a copy, which stops nothing shared).
 *
 * @author redlock contributors
 */
final class FleetResources {

	// the fleet's log category, which operators know
	private static final Log logger = LogFactory.getLog(NodeFleet.class);

	private final ClientResources resources;

	private final boolean shutDownOnClose;

	/**
	 * @param given Lettuce resources to share, or {@code null} to create the fleet's own
	 * @param coalesceWrites whether concurrent commands to one node go out in one write
	 */
	FleetResources(@Nullable ClientResources given, boolean coalesceWrites) {
		if (given == null) {
			DefaultClientResources.Builder builder = DefaultClientResources.builder()
				.reconnectDelay(
						Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS));
			if (coalesceWrites) {
				builder.nettyCustomizer(WriteCoalescing.create());
			}
			this.resources = builder.build();
		}
		else {
			this.resources = coalesceWrites ? sharedWithCoalescing(given) : given;
		}
		this.shutDownOnClose = given == null || this.resources != given;
	}

	ClientResources get() {
		return this.resources;
	}

	boolean shutDownOnClose() {
		return this.shutDownOnClose;
	}

	/**
	 * Returns a copy of the application's resources that adds write coalescing, or the
	 * resources themselves if they cannot be copied (a {@code ClientResources} of its own
	 * whose {@code mutate()} fails): locking works the same, one write per command.
	 */
	private static ClientResources sharedWithCoalescing(ClientResources resources) {
		try {
			return WriteCoalescing.sharing(resources);
		}
		catch (RuntimeException ex) {
			logger.info("Redlock nodes get no write coalescing: the given ClientResources could not be copied (" + ex
					+ "); each command goes out in a write of its own");
			return resources;
		}
	}

}
