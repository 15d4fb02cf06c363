package io.github.redlock.aop;

import java.util.function.Supplier;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import reactor.util.context.ContextView;

import org.springframework.util.ClassUtils;

/**
 * Restores, around a call, the thread locals that a reactive subscriber keeps in its
 * Reactor context (the current Micrometer observation above all), so that an acquisition
 * started for a {@code Mono} or {@code Flux} is traced under the caller's observation.
 * Does nothing without Micrometer's context-propagation library.
 *
 * @author redlock contributors
 */
final class SubscriberThreadLocals {

	private static final boolean PRESENT = ClassUtils.isPresent("io.micrometer.context.ContextSnapshotFactory",
			SubscriberThreadLocals.class.getClassLoader());

	private SubscriberThreadLocals() {
	}

	static <T> T call(ContextView context, Supplier<T> action) {
		if (!PRESENT || context.isEmpty()) {
			return action.get();
		}
		return Propagation.call(context, action);
	}

	/**
	 * Loaded only when context-propagation is present.
	 */
	private static final class Propagation {

		private static final ContextSnapshotFactory FACTORY = ContextSnapshotFactory.builder().build();

		static <T> T call(ContextView context, Supplier<T> action) {
			try (ContextSnapshot.Scope scope = FACTORY.setThreadLocalsFrom(context)) {
				return action.get();
			}
		}

	}

}
