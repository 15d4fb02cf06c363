package io.github.redlock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Runs the annotated method under a distributed lock: acquired before the call, kept
 * extended while it runs, released after it, whatever the outcome. Inside a transaction
 * the lock is released only once the transaction has completed, so it covers the commit.
 *
 * <pre class="code">
 * &#064;DistributedLock(key = "'order:' + #orderId", ttl = "10s", waitTime = "2s")
 * public Receipt pay(long orderId) { ... }
 * </pre>
 *
 * The key is the very key that {@code LockRegistry} methods take: the annotation above
 * and {@code registry.acquire("order:7", ...)} contend. A key that evaluates to a
 * collection or an array locks all of its elements, all or nothing, in a fixed order. May
 * be used as a meta-annotation.
 * <p>
 * The return type decides how long the lock is held. A method returning
 * {@code CompletionStage} or {@code CompletableFuture} holds it until the stage
 * completes; one returning a reactive type that Spring's {@code ReactiveAdapterRegistry}
 * knows ({@code Mono}, {@code Flux}, {@code Publisher}, {@code Flow.Publisher}, RxJava,
 * Kotlin {@code Flow} with {@code kotlinx-coroutines-reactor}) holds it from each
 * subscription until completion, error or cancellation; these report a key that cannot be
 * evaluated, or a lock that cannot be acquired, in their result (a failed stage, an error
 * signal), not by throwing. A Kotlin {@code suspend} function holds it, acquired without
 * blocking a thread, until the function returns, throws or is cancelled, as
 * {@code @Transactional} holds a reactive transaction: with
 * {@code kotlinx-coroutines-reactor} and {@code kotlin-reflect} present, Spring's proxy
 * runs the function through its coroutine bridge; the caller gets the lock's exceptions
 * as thrown ones. A return type whose work outlives the call but that the lock cannot
 * follow ({@code Future}, a reactive type without its adapter, a {@code suspend} function
 * without the bridge) is refused at start-up. Any other method holds the lock until it
 * returns.
 * <p>
 * In proxy mode (the default), only calls coming in through the proxy are intercepted, as
 * for {@code @Transactional} and {@code @Cacheable}: a method of the same bean calling an
 * annotated method ({@code this.pay(id)}) runs it <em>unlocked</em>. Call it through the
 * proxy instead: move the annotated method to another bean, or inject the bean into
 * itself ({@code @Lazy} or {@code ObjectProvider<PaymentService>}) and call
 * {@code self.pay(id)}. A method that the proxy cannot intercept at all (private, static,
 * final under a class-based proxy, as every Kotlin function without {@code open} is, of a
 * final class, or declared on no interface of an interface-based proxy) stops start-up,
 * naming the method and the fix.
 * <p>
 * With {@code @Cacheable} and {@code @Transactional} on the same method, and no order
 * chosen in {@code redlock.order} or {@code @EnableCaching(order)}, the cache is checked
 * first (a hit takes no lock), then the lock is acquired, then the transaction begins, so
 * the lock covers the commit.
 * <p>
 * Meta-annotated with {@link Reflective @Reflective}, as Spring's {@code @Cacheable} is:
 * Spring's AOT processing registers every annotated method of a bean for reflective
 * invocation, which a native image needs.
 *
 * @author redlock contributors
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface DistributedLock {

	/**
	 * The lock's key, as a SpEL expression over the method's arguments: {@code #orderId},
	 * {@code #order.id}, {@code #p0}, {@code #a0}, {@code #root.methodName},
	 * {@code @bean.method(#x)}, {@code 'order:' + #id}. Literal keys are quoted:
	 * {@code "'nightly-report'"}.
	 * @return the key expression
	 */
	String key();

	/**
	 * How long the lock lives on the nodes unless extended: {@code 10s}, {@code 500ms},
	 * {@code PT10S} or a {@code ${placeholder}}. Empty means {@code redlock.default-ttl}.
	 * @return the TTL
	 */
	String ttl() default "";

	/**
	 * How long to keep trying to acquire the lock before failing with
	 * {@code LockAcquisitionException}; same forms as {@link #ttl()}. Empty means
	 * {@code redlock.default-wait-time}; {@code 0s} makes one attempt.
	 * @return the wait time
	 */
	String waitTime() default "";

	/**
	 * Whether to keep the lease extended while the method runs.
	 * @return whether to auto-extend
	 */
	boolean autoExtend() default true;

	/**
	 * Whether to skip the call quietly when another owner holds the lock, rather than
	 * throw {@code LockAcquisitionException}: for {@code @Scheduled} jobs that every
	 * instance triggers and one should run. A skipped {@code void} method just returns,
	 * an {@code Optional} method returns {@code Optional.empty()}, a {@code Mono} or
	 * {@code Flux} completes empty, and a {@code CompletionStage} of {@code Void} or
	 * {@code Optional} completes with {@code null} or empty; each skip logs one DEBUG
	 * line naming the key and the method. Other return types cannot say "skipped" and are
	 * refused when the bean is proxied. With it, an empty {@link #waitTime()} means
	 * {@code 0s} (one attempt) rather than {@code redlock.default-wait-time}. Only a lock
	 * held elsewhere is skipped: too few usable nodes still throws, since then no
	 * instance can run the job. <pre class="code">
	 * &#064;Scheduled(cron = "0 0 * * * *")
	 * &#064;DistributedLock(key = "'hourly-report'", skipIfLocked = true, holdAtLeast = "1m")
	 * public void report() { ... }
	 * </pre>
	 * @return whether to skip when the lock is held elsewhere
	 */
	boolean skipIfLocked() default false;

	/**
	 * The least time the lock stays held once acquired, as ShedLock's
	 * {@code lockAtLeastFor}; same forms as {@link #ttl()}, empty for none. When the
	 * method returns sooner, the lock is kept until acquisition plus this, then expires
	 * on the nodes by itself (past {@code redlock.max-ttl} the watchdog keeps it until
	 * then), so that instances whose schedules are a little apart do not run a fast job
	 * twice in one period. Within a transaction it counts from acquisition to the release
	 * after completion. A nested call on a lock its thread holds changes nothing: the
	 * outermost call's hold decides. Supported on methods that return a plain value or
	 * {@code void}; at most {@code redlock.max-hold}.
	 * @return the minimum hold
	 */
	String holdAtLeast() default "";

	/**
	 * How to lock the key: {@link LockMode#EXCLUSIVE} (the default, one holder),
	 * {@link LockMode#READ} (shared by readers) or {@link LockMode#WRITE} (one writer).
	 * {@code EXCLUSIVE} and {@code WRITE} on one key exclude each other: a method
	 * annotated either way waits for the other. Works on every return type the exclusive
	 * lock works on: a {@code CompletionStage} or reactive method holds its read or write
	 * lease until its work ends, and is not reentrant (each call or subscription takes a
	 * lease of its own, so it neither joins nor downgrades a lock its thread holds).
	 * @return the mode
	 */
	LockMode mode() default LockMode.EXCLUSIVE;

	/**
	 * A semaphore of this many permits on the key rather than a lock: up to that many
	 * calls run at once across the fleet, each holding a permit of its own (permits are
	 * not reentrant: a nested call takes another). 0, the default, means no semaphore;
	 * with permits, {@link #mode()} must stay {@code EXCLUSIVE}. Works on every return
	 * type the exclusive lock works on: a {@code CompletionStage} or reactive method
	 * holds its permit until its work ends.
	 * @return the permits, or 0
	 */
	int permits() default 0;

}
