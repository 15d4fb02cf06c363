package io.github.redlock.autoconfigure;

import io.lettuce.core.ClientOptions;

/**
 * Tunes the Lettuce client options of every redlock node: SSL, socket options and the
 * like. Applied, in order, after the registry has set auto-reconnect, the rejection of
 * commands while disconnected, and the per-node timeout.
 *
 * @author redlock contributors
 */
@FunctionalInterface
public interface RedlockClientOptionsCustomizer {

	/**
	 * Customizes the options of one node's client.
	 * @param options the options being built
	 */
	void customize(ClientOptions.Builder options);

}
