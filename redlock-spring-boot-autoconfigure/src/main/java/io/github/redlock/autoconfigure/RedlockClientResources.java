package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.resource.DefaultClientResources;
import io.netty.util.concurrent.Future;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The registry's own Lettuce resources, shut down with the context without waiting past a
 * bound. Spring waits for the {@code Future} a destroy method returns, without a limit;
 * Lettuce's {@code shutdown()} returns one that completes when every event loop has
 * ended, and a context close once waited for it for minutes (nodes had been killed,
 * connections were reconnecting). Closing waits {@link #SHUTDOWN_WAIT} at most, then lets
 * the close go on and says so: the event loops are daemon threads and still end once
 * their work does.
 *
 * @author redlock contributors
 */
public class RedlockClientResources extends DefaultClientResources {

	/** How long {@link #close()} waits for the event loops to end. */
	static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(5);

	private static final Log logger = LogFactory.getLog(RedlockClientResources.class);

	RedlockClientResources(DefaultClientResources.Builder builder) {
		super(builder);
	}

	/**
	 * Shuts the resources down and waits at most {@link #SHUTDOWN_WAIT} for them: the
	 * bean's destroy method.
	 */
	public void close() {
		Future<Boolean> shutdown = shutdown(0, 2, TimeUnit.SECONDS);
		// told through a listener: awaiting the future itself throws when its executor
		// takes every thread for its own
		CountDownLatch ended = new CountDownLatch(1);
		shutdown.addListener((done) -> ended.countDown());
		try {
			if (!ended.await(SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
				logger.warn("The redlock registry's Lettuce resources did not shut down within "
						+ SHUTDOWN_WAIT.toSeconds() + "s; the context closes without waiting longer");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
