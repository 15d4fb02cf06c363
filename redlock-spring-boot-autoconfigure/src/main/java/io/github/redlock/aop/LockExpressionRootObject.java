package io.github.redlock.aop;

import java.lang.reflect.Method;

/**
 * The {@code #root} object of a lock key expression.
 *
 * @param method the method being called
 * @param args its arguments
 * @param target the target object
 * @param targetClass the target class
 * @author redlock contributors
 */
record LockExpressionRootObject(Method method, Object[] args, Object target, Class<?> targetClass) {

	public Method getMethod() {
		return this.method;
	}

	public String getMethodName() {
		return this.method.getName();
	}

	public Object[] getArgs() {
		return this.args;
	}

	public Object getTarget() {
		return this.target;
	}

	public Class<?> getTargetClass() {
		return this.targetClass;
	}

}
