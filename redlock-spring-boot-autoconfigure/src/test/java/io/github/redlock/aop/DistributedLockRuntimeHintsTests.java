package io.github.redlock.aop;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import io.github.redlock.annotation.DistributedLock;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.spel.ExpressionState;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints a native image needs for {@code @DistributedLock} methods and their
 * keys: the annotated methods themselves (as Spring registers {@code @Cacheable} ones),
 * the classes the key evaluator initializes by name, and the {@code #root} object SpEL
 * reads reflectively.
 */
class DistributedLockRuntimeHintsTests {

	private final RuntimeHints hints = registeredHints();

	private static RuntimeHints registeredHints() {
		RuntimeHints hints = new RuntimeHints();
		ClassLoader classLoader = DistributedLockRuntimeHintsTests.class.getClassLoader();
		AotServices.factories(classLoader)
			.load(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(hints, classLoader));
		return hints;
	}

	@Test
	void classesTheKeyEvaluatorInitializesByNameAreRegistered() {
		for (Class<?> type : new Class<?>[] { LockExpressionRootObject.class, CurrentLease.class,
				MethodBasedEvaluationContext.class, BeanFactoryResolver.class, ExpressionState.class }) {
			assertThat(RuntimeHintsPredicates.reflection().onType(type)).as(type.getName()).accepts(this.hints);
		}
	}

	@Test
	void rootObjectOfKeyExpressionsCanBeReadBySpel() {
		for (Method method : LockExpressionRootObject.class.getDeclaredMethods()) {
			if (Modifier.isPublic(method.getModifiers())) {
				assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method))
					.as("#root." + method.getName())
					.accepts(this.hints);
			}
		}
	}

	@Test
	void annotatedMethodsAreRegisteredForInvocation() {
		RuntimeHints beanHints = new RuntimeHints();
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(beanHints, Payments.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Payments.class, "pay")).accepts(beanHints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Payments.class, "refund"))
			.as("a method under a composed annotation")
			.accepts(beanHints);
	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@DistributedLock(key = "'refunds'")
	@interface RefundLock {

	}

	static class Payments {

		@DistributedLock(key = "'order:' + #orderId")
		void pay(long orderId) {
		}

		@RefundLock
		void refund(long orderId) {
		}

	}

}
