package io.github.redlock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

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
 * be used as a meta-annotation. Methods returning {@code CompletionStage} hold the lock
 * until the stage completes; methods returning a Reactor {@code Mono} or {@code Flux}
 * hold it from subscription until completion, error or cancellation.
 *
 * @author redlock contributors
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
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

}
