package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * How a {@code @DistributedLock} method's lock follows its work, decided once from its
 * return type, as {@code TransactionAspectSupport} decides between a reactive and an
 * imperative transaction: a plain value holds the lock until the method returns; a
 * {@code CompletionStage} until the stage completes; any type that Spring's
 * {@link ReactiveAdapterRegistry} adapts ({@code Mono}, {@code Flux}, {@code Publisher},
 * {@code Flow.Publisher}, RxJava, Kotlin {@code Flow} with
 * {@code kotlinx-coroutines-reactor}, ...) until the publisher completes, fails or is
 * cancelled. A Kotlin {@code suspend} function is locked as {@code @Transactional} locks
 * it: with {@code kotlinx-coroutines-reactor} present, Spring's proxy calls it through
 * its coroutine bridge, so the rest of the advice chain returns a {@code Mono} of the
 * call (a {@code Flux} for a function that returns a {@code Flow}), which the lock
 * follows, and the proxy awaits what the interceptor returns in the caller's coroutine. A
 * return type whose work outlives the call but that none of these can follow
 * ({@code Future}, a reactive type without its adapter, a {@code suspend} function
 * without the bridge) is refused, since its lock would be released before its work ran.
 *
 * @param style the locking to use
 * @param adapter the adapter of a reactive type other than {@code Mono} and {@code Flux},
 * or {@code null}
 * @param suspending whether the method is a Kotlin {@code suspend} function, whose
 * declared return type is the coroutine's result, not the {@code Object} of its bytecode
 * @author redlock contributors
 */
record LockedReturnType(Style style, @Nullable ReactiveAdapter adapter, boolean suspending) {

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			LockedReturnType.class.getClassLoader());

	/**
	 * Whether Spring's proxies call a suspend function through the coroutine bridge: they
	 * do with kotlinx-coroutines-reactor, and the bridge's {@code CoroutinesUtils} needs
	 * kotlin-reflect.
	 */
	private static final boolean COROUTINES_BRIDGE_PRESENT = ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt",
			LockedReturnType.class.getClassLoader()) && KotlinDetector.isKotlinReflectPresent();

	private static final String KOTLIN_FLOW = "kotlinx.coroutines.flow.Flow";

	/** Asynchronous types that only an adapter (or Reactor) lets the lock follow. */
	private static final List<String> ASYNC_TYPES = List.of("org.reactivestreams.Publisher",
			"java.util.concurrent.Flow$Publisher", KOTLIN_FLOW, "kotlinx.coroutines.Deferred",
			"io.reactivex.rxjava3.core.Observable", "io.reactivex.rxjava3.core.Single",
			"io.reactivex.rxjava3.core.Maybe", "io.reactivex.rxjava3.core.Completable",
			"io.reactivex.rxjava3.core.Flowable", "io.smallrye.mutiny.Uni", "io.smallrye.mutiny.Multi");

	static final LockedReturnType VALUE = new LockedReturnType(Style.VALUE, null);

	static final LockedReturnType COMPLETION_STAGE = new LockedReturnType(Style.COMPLETION_STAGE, null);

	LockedReturnType(Style style, @Nullable ReactiveAdapter adapter) {
		this(style, adapter, false);
	}

	/**
	 * The lockings.
	 */
	enum Style {

		/** Held until the method returns (or its transaction completes). */
		VALUE,

		/** Held until the returned stage completes. */
		COMPLETION_STAGE,

		/** Held, per subscription, until the returned single-value publisher ends. */
		MONO,

		/** Held, per subscription, until the returned multi-value publisher ends. */
		FLUX

	}

	/**
	 * Returns whether the lock is acquired on subscription, per subscription.
	 */
	boolean reactive() {
		return this.style == Style.MONO || this.style == Style.FLUX;
	}

	/**
	 * Decides how to lock a method.
	 * @param method the method
	 * @return how its lock follows its work
	 * @throws Refused with the reason, for a return type that cannot be locked correctly
	 */
	static LockedReturnType of(Method method) {
		if (KotlinDetector.isSuspendingFunction(method)) {
			return suspending(method);
		}
		Class<?> type = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(type)) {
			if (type.isAssignableFrom(CompletableFuture.class)) {
				return COMPLETION_STAGE;
			}
			throw refused(
					"returns " + type.getName() + ", a CompletionStage the lock cannot hand back once it is released",
					"Declare CompletionStage" + " or CompletableFuture as the return type");
		}
		if (Future.class.isAssignableFrom(type)) {
			throw refused("returns " + type.getName()
					+ ", which cannot say when its work is done without a thread blocking on it, so the lock would"
					+ " be released before the work runs", "Return a CompletableFuture or CompletionStage");
		}
		if (REACTOR_PRESENT) {
			LockedReturnType reactive = Reactor.of(type);
			if (reactive != null) {
				return reactive;
			}
		}
		if (isAsync(type)) {
			throw refused(
					"returns " + type.getName()
							+ ", whose work runs after the method returns, and no reactive adapter is on the classpath"
							+ " for it, so the lock would be released before the work runs",
					"Add reactor-core (and, for"
							+ " Kotlin's Flow, kotlinx-coroutines-reactor; for RxJava or Mutiny, their library) or"
							+ " return a Mono, Flux or CompletableFuture");
		}
		return VALUE;
	}

	/**
	 * Decides how to lock a Kotlin suspend function: as the {@code Mono} (or, for a
	 * function returning a {@code Flow}, the {@code Flux}) that Spring's coroutine bridge
	 * makes of the call.
	 */
	private static LockedReturnType suspending(Method method) {
		if (!COROUTINES_BRIDGE_PRESENT) {
			throw refused(
					"is a Kotlin suspend function, and without kotlinx-coroutines-reactor and kotlin-reflect"
							+ " Spring's proxy calls it as a plain method, so the lock would be released at its first"
							+ " suspension, before the work is done",
					"Add org.jetbrains.kotlinx:kotlinx-coroutines-reactor and org.jetbrains.kotlin:kotlin-reflect,"
							+ " with which Spring's proxy runs a suspend function as a Mono that the lock follows, as"
							+ " it does for @Transactional");
		}
		Class<?> type = new MethodParameter(method, -1).getParameterType();
		if (type.getName().equals(KOTLIN_FLOW)) {
			return new LockedReturnType(Style.FLUX, null, true);
		}
		if (isAsync(type) || CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type)) {
			throw refused("is a Kotlin suspend function that returns " + type.getName()
					+ ", whose work runs after the function returns, so the lock would be released before that work"
					+ " ends",
					"Return the value itself, or drop suspend: the lock follows a CompletableFuture, a"
							+ " Mono, a Flux or a Flow that a plain function returns");
		}
		return new LockedReturnType(Style.MONO, null, true);
	}

	private static boolean isAsync(Class<?> type) {
		for (String name : ASYNC_TYPES) {
			Class<?> async = resolve(name);
			if (async != null && async.isAssignableFrom(type)) {
				return true;
			}
		}
		return false;
	}

	private static Refused refused(String problem, String action) {
		return new Refused(problem, action);
	}

	private static @Nullable Class<?> resolve(String name) {
		ClassLoader classLoader = LockedReturnType.class.getClassLoader();
		return ClassUtils.isPresent(name, classLoader) ? ClassUtils.resolveClassName(name, classLoader) : null;
	}

	/**
	 * Why a return type cannot be locked, and what to do.
	 */
	static final class Refused extends IllegalArgumentException {

		private static final long serialVersionUID = 1L;

		private final String action;

		Refused(String problem, String action) {
			super(problem);
			this.action = action;
		}

		String action() {
			return this.action;
		}

	}

	/**
	 * Reactive types, loaded only when Reactor is present.
	 */
	private static final class Reactor {

		static @Nullable LockedReturnType of(Class<?> type) {
			if (ReactiveLocking.isMono(type)) {
				return new LockedReturnType(Style.MONO, null);
			}
			if (ReactiveLocking.isFlux(type)) {
				return new LockedReturnType(Style.FLUX, null);
			}
			ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
			if (adapter == null || !adapter.getReactiveType().isAssignableFrom(type)) {
				return null;
			}
			if (!type.isAssignableFrom(adapter.getReactiveType())) {
				throw refused(
						"returns " + type.getName() + ", a subtype of " + adapter.getReactiveType().getName()
								+ " that the lock cannot hand back",
						"Declare " + adapter.getReactiveType().getSimpleName() + " as the return type");
			}
			return new LockedReturnType(adapter.isMultiValue() ? Style.FLUX : Style.MONO, adapter);
		}

	}

}
