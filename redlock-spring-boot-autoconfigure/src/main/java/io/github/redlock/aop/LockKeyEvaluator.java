package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.ExpressionState;
import org.springframework.expression.spel.SpelNode;
import org.springframework.util.ObjectUtils;

/**
 * Evaluates lock keys the way Spring's cache abstraction evaluates cache keys: each
 * expression is parsed once per method and target class, and evaluated against the
 * method's arguments ({@code #name}, {@code #p0}, {@code #a0}), the {@code #root} object
 * and beans ({@code @name}); then turns the value into the keys to lock.
 *
 * @author redlock contributors
 */
class LockKeyEvaluator extends CachedExpressionEvaluator {

	/**
	 * Classes initialized with the advisor, at start-up, rather than by the first calls:
	 * a virtual thread waiting for another thread to initialize a class pins its carrier,
	 * on JDK 25 as on 21. Loaded by name, so a native image needs them registered
	 * ({@link DistributedLockRuntimeHints}).
	 */
	static final List<Class<?>> INITIALIZED_AT_START = List.of(LockExpressionRootObject.class, CurrentLease.class,
			MethodBasedEvaluationContext.class, BeanFactoryResolver.class, ExpressionState.class);

	static {
		initialize(INITIALIZED_AT_START);
	}

	private final Map<ExpressionKey, Expression> keyCache = new ConcurrentHashMap<>(64);

	private final int maxKeys;

	/**
	 * Creates an evaluator.
	 * @param maxKeys the most distinct keys one call may lock
	 */
	LockKeyEvaluator(int maxKeys) {
		this.maxKeys = maxKeys;
	}

	private static void initialize(List<Class<?>> types) {
		for (Class<?> type : types) {
			try {
				Class.forName(type.getName(), true, type.getClassLoader());
			}
			catch (ClassNotFoundException ex) {
				throw new IllegalStateException(ex);
			}
		}
	}

	/**
	 * Parses the expression, or returns the one parsed before.
	 * @throws org.springframework.expression.ParseException if it does not parse
	 */
	Expression parse(String expression, AnnotatedElementKey elementKey) {
		return getExpression(this.keyCache, elementKey, expression);
	}

	/**
	 * Parses the concatenation of a key's parts over the variables that hold their
	 * values.
	 */
	Expression parsePart(String expression) {
		return getParser().parseExpression(expression);
	}

	/**
	 * Returns the names of a method's parameters, or {@code null} if the class was
	 * compiled without {@code -parameters}.
	 */
	String @Nullable [] parameterNames(Method method) {
		return getParameterNameDiscoverer().getParameterNames(method);
	}

	@Nullable Object evaluate(LockOperation operation, @Nullable Object[] args, @Nullable Object target, Class<?> targetClass,
			@Nullable BeanFactory beanFactory) {
		Method method = operation.method();
		LockExpressionRootObject root = new LockExpressionRootObject(method, args, target, targetClass);
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, args,
				getParameterNameDiscoverer());
		if (beanFactory != null) {
			context.setBeanResolver(new BeanFactoryResolver(beanFactory));
		}
		KeyParts parts = operation.parts();
		if (parts == null) {
			return parse(operation.keyExpression(), operation.elementKey()).getValue(context);
		}
		// each operand once, in SpEL's order; then SpEL's own + over their values
		ExpressionState state = new ExpressionState(context);
		for (int i = 0; i < parts.operands().size(); i++) {
			SpelNode operand = parts.operands().get(i);
			Object value = operand.getValue(state);
			if (value == null && parts.checked().get(i)) {
				throw badKey(operation, "has a null part: " + operand.toStringAST()
						+ " evaluated to null, which would lock on the text \"null\"");
			}
			context.setVariable(KeyParts.VARIABLE + i, value);
		}
		return parts.combined().getValue(context);
	}

	/**
	 * Evaluates the key: one key, or the distinct elements of a collection or array,
	 * sorted so that every method locks them in the same order and none can deadlock
	 * another.
	 * @throws IllegalArgumentException naming the method if no usable key results
	 */
	List<String> keys(LockOperation operation, @Nullable Object[] args, @Nullable Object target, Class<?> targetClass,
			@Nullable BeanFactory beanFactory) {
		Object value = evaluate(operation, args, target, targetClass, beanFactory);
		if (value == null) {
			throw badKey(operation, "evaluated to null");
		}
		Collection<?> items;
		if (value instanceof Collection<?> collection) {
			items = collection;
		}
		else if (value.getClass().isArray()) {
			items = Arrays.asList(ObjectUtils.toObjectArray(value));
		}
		else {
			// the common case: one key, nothing to sort
			String key = value.toString();
			if (key.isEmpty()) {
				throw badKey(operation, "evaluated to an empty key");
			}
			return List.of(key);
		}
		TreeSet<String> keys = new TreeSet<>();
		for (Object item : items) {
			String key = (item != null) ? item.toString() : null;
			if (key == null || key.isEmpty()) {
				throw badKey(operation,
						(items.size() == 1) ? "evaluated to an empty key" : "contains a null or empty key");
			}
			keys.add(key);
		}
		if (keys.isEmpty()) {
			throw badKey(operation, "evaluated to an empty collection");
		}
		if (keys.size() > this.maxKeys) {
			throw new IllegalArgumentException("@DistributedLock key \"" + operation.keyExpression() + "\" of "
					+ operation.description() + " evaluated to " + keys.size() + " keys, more than redlock.max-keys ("
					+ this.maxKeys + "): nothing was locked. Lock fewer keys per call, or raise redlock.max-keys");
		}
		return new ArrayList<>(keys);
	}

	private static IllegalArgumentException badKey(LockOperation operation, String problem) {
		return new IllegalArgumentException("@DistributedLock key \"" + operation.keyExpression() + "\" of "
				+ operation.description() + " " + problem + ": a lock needs a non-empty key");
	}

}
