package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;

/**
 * Evaluates lock keys the way Spring's cache abstraction evaluates cache keys: each
 * expression is parsed once per method and target class, and evaluated against the
 * method's arguments ({@code #name}, {@code #p0}, {@code #a0}), the {@code #root} object
 * and beans ({@code @name}).
 *
 * @author redlock contributors
 */
class LockKeyEvaluator extends CachedExpressionEvaluator {

	private final Map<ExpressionKey, Expression> keyCache = new ConcurrentHashMap<>(64);

	/**
	 * Parses the expression, or returns the one parsed before.
	 * @throws org.springframework.expression.ParseException if it does not parse
	 */
	Expression parse(String expression, AnnotatedElementKey elementKey) {
		return getExpression(this.keyCache, elementKey, expression);
	}

	Object evaluate(LockOperation operation, Object[] args, Object target, Class<?> targetClass,
			BeanFactory beanFactory) {
		Method method = operation.method();
		LockExpressionRootObject root = new LockExpressionRootObject(method, args, target, targetClass);
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, args,
				getParameterNameDiscoverer());
		if (beanFactory != null) {
			context.setBeanResolver(new BeanFactoryResolver(beanFactory));
		}
		return evaluate(context, operation);
	}

	private Object evaluate(EvaluationContext context, LockOperation operation) {
		return parse(operation.keyExpression(), operation.elementKey()).getValue(context);
	}

}
