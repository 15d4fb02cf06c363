package io.github.redlock.engine.lease;

import java.util.List;
import java.util.function.Consumer;

import io.github.redlock.engine.RegistryListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells the {@link RegistryListener}s of a registry what happens to its locks. A failing
 * listener is logged and the others are still told.
 *
 * @author redlock contributors
 */
public final class RegistryEvents {

	private static final Log logger = LogFactory.getLog(RegistryEvents.class);

	private final List<RegistryListener> listeners;

	public RegistryEvents(List<RegistryListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	/**
	 * Returns whether anyone listens, so that callers build an event only when it will be
	 * heard.
	 */
	public boolean any() {
		return !this.listeners.isEmpty();
	}

	public void tell(Consumer<RegistryListener> event) {
		for (RegistryListener listener : this.listeners) {
			try {
				event.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("RegistryListener " + listener + " failed", ex);
			}
		}
	}

}
