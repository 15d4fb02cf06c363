package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Collection;
import java.util.stream.Collectors;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.SmartInstantiationAwareBeanPostProcessor;
import org.springframework.util.ClassUtils;

/**
 * Refuses a {@code @DistributedLock} method that its bean's proxy cannot intercept: such
 * a method would run unlocked at every call, in silence. Registered by the
 * auto-configuration beside the advisor; the refusal stops start-up (or the creation of a
 * lazy or prototype bean), naming the method and the fix.
 * <p>
 * Invariants (this class owns them):
 * <ul>
 * <li>A locked method that no Spring proxy can intercept (static, private, or final or on
 * a final class while no interface of the class declares it) is refused when the advisor
 * first matches its class, before a proxy is built.</li>
 * <li>A locked method that the proxy built for its bean does not intercept (final, under
 * a class-based CGLIB proxy; declared on none of the proxied interfaces, under an
 * interface-based JDK proxy) is refused once that proxy exists, before the bean is handed
 * to anyone.</li>
 * </ul>
 * A call through {@code this} (self-invocation) never reaches a proxy either; nothing at
 * start-up tells it apart from a call through the bean, so it is documented, not refused.
 * A final class whose locked methods all sit on an interface is left to the proxy: an
 * interface-based proxy locks them, and a class-based one fails with CGLIB's "Cannot
 * subclass final class".
 *
 * @author redlock contributors
 */
public final class LockInterceptionCheck implements SmartInstantiationAwareBeanPostProcessor {

	private static final String CONSEQUENCE = ": every call would run unlocked";

	private static final String ANOTHER_BEAN = "or move the lock to a public method of another bean";

	private static final String NON_FINAL = "Make the method non-final (in Kotlin, mark it open, or apply the"
			+ " kotlin-spring or all-open compiler plugin), " + ANOTHER_BEAN;

	@Override
	public Object getEarlyBeanReference(Object bean, String beanName) {
		checkProxy(bean);
		return bean;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		checkProxy(bean);
		return bean;
	}

	/**
	 * Refuses a locked method that no proxy could intercept, whatever its kind.
	 * @param operation the method's lock
	 * @param targetClass the class of the bean
	 * @throws InvalidDistributedLockException if no proxy could intercept it
	 */
	static void checkInterceptable(LockOperation operation, Class<?> targetClass) {
		Method method = operation.method();
		int modifiers = method.getModifiers();
		if (Modifier.isStatic(modifiers)) {
			throw refused(operation, "the method is static, so no call to it goes through the bean's proxy",
					"Make it an instance method and call it through the bean, " + ANOTHER_BEAN);
		}
		if (Modifier.isPrivate(modifiers)) {
			throw refused(operation, "the method is private, so the bean's proxy cannot intercept it",
					"Make the method public and call it through the bean (not through this), " + ANOTHER_BEAN);
		}
		if (declaredOn(ClassUtils.getAllInterfacesForClassAsSet(targetClass), method, targetClass)) {
			return; // an interface-based proxy intercepts it
		}
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		if (Modifier.isFinal(userClass.getModifiers())) {
			throw refused(operation, "the class " + userClass.getSimpleName()
					+ " is final, so Spring cannot subclass it to intercept the method, and no interface of it declares the method",
					"Make the class and the method non-final (in Kotlin, mark both open, or apply the kotlin-spring"
							+ " or all-open compiler plugin), " + ANOTHER_BEAN);
		}
		if (Modifier.isFinal(modifiers)) {
			throw refused(operation,
					"the method is final, so a class-based (CGLIB) proxy cannot override it, and no interface of the class declares it",
					NON_FINAL);
		}
	}

	private static void checkProxy(Object bean) {
		if (!(bean instanceof Advised advised) || !AopUtils.isAopProxy(bean)) {
			return;
		}
		for (Advisor advisor : advised.getAdvisors()) {
			if (advisor instanceof DistributedLockAdvisor locks) {
				Class<?> targetClass = AopUtils.getTargetClass(bean);
				for (LockOperation operation : locks.operations(targetClass)) {
					checkProxied(operation, targetClass, advised, AopUtils.isCglibProxy(bean));
				}
			}
		}
	}

	private static void checkProxied(LockOperation operation, Class<?> targetClass, Advised proxy, boolean cglib) {
		Method method = operation.method();
		if (cglib && Modifier.isFinal(method.getModifiers())) {
			throw refused(operation, "the method is final, and the bean's class-based (CGLIB) proxy cannot override it",
					NON_FINAL);
		}
		if (!cglib && !declaredOn(Arrays.asList(proxy.getProxiedInterfaces()), method, targetClass)) {
			String interfaces = Arrays.stream(proxy.getProxiedInterfaces())
				.map(Class::getSimpleName)
				.collect(Collectors.joining(", "));
			throw refused(operation,
					"the method is on no interface of the bean's interface-based (JDK) proxy (" + interfaces
							+ "), so only a call through this could reach it",
					"Declare the method on an interface the bean implements, proxy the class instead"
							+ " (spring.aop.proxy-target-class=true, Spring Boot's default), " + ANOTHER_BEAN);
		}
	}

	/**
	 * Returns whether one of the interfaces declares a method that resolves to the given
	 * one on the target class, as an interface-based proxy's call resolves.
	 */
	private static boolean declaredOn(Collection<Class<?>> interfaces, Method method, Class<?> targetClass) {
		for (Class<?> candidate : interfaces) {
			for (Method declared : candidate.getMethods()) {
				if (!Modifier.isStatic(declared.getModifiers())
						&& AopUtils.getMostSpecificMethod(declared, targetClass).equals(method)) {
					return true;
				}
			}
		}
		return false;
	}

	private static InvalidDistributedLockException refused(LockOperation operation, String problem, String action) {
		return new InvalidDistributedLockException(
				"@DistributedLock on " + operation.description() + ": " + problem + CONSEQUENCE, action + ".");
	}

}
