package io.github.redlock.shedlock.autoconfigure;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.redlock.Durations;
import io.github.redlock.shedlock.RedlockLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Finds, once the singletons are created, the ShedLock locks whose {@code lockAtMostFor}
 * is above {@code redlock.max-hold}: {@code defaultLockAtMostFor} of
 * {@code @EnableSchedulerLock} and {@code lockAtMostFor} of every {@code @SchedulerLock}
 * method of the application's beans, placeholders resolved as ShedLock resolves them.
 * Such a lock could not be held as long as asked, so the start-up fails, naming each,
 * rather than every run of the task cutting it short. Lock names known only at run time
 * are cut to the maximum hold by {@code RedlockLockProvider}, with a warning.
 *
 * @author redlock contributors
 */
final class SchedulerLockMaxHoldCheck implements SmartInitializingSingleton {

	private final ConfigurableListableBeanFactory beanFactory;

	private final Duration maxHold;

	SchedulerLockMaxHoldCheck(ConfigurableListableBeanFactory beanFactory, Duration maxHold) {
		this.beanFactory = beanFactory;
		this.maxHold = maxHold;
	}

	@Override
	// a duration was read only from an annotation that was found
	@SuppressWarnings("NullAway")
	public void afterSingletonsInstantiated() {
		if (!(this.beanFactory.getBeanProvider(LockProvider.class).getIfUnique() instanceof RedlockLockProvider)) {
			return; // the application's own LockProvider: not the redlock registry's
					// limits
		}
		Set<String> tooLong = new LinkedHashSet<>();
		Duration longest = Duration.ZERO;
		for (String name : this.beanFactory.getBeanNamesForAnnotation(EnableSchedulerLock.class)) {
			EnableSchedulerLock enable = this.beanFactory.findAnnotationOnBean(name, EnableSchedulerLock.class);
			Duration asked = (enable != null) ? parse(enable.defaultLockAtMostFor()) : null;
			if (asked != null && asked.compareTo(this.maxHold) > 0) {
				tooLong.add("defaultLockAtMostFor \"" + enable.defaultLockAtMostFor() + "\" (" + Durations.format(asked)
						+ ") of @EnableSchedulerLock on bean '" + name + "'");
				longest = max(longest, asked);
			}
		}
		for (String name : this.beanFactory.getBeanDefinitionNames()) {
			Class<?> type = this.beanFactory.getType(name, false);
			if (type == null) {
				continue;
			}
			Map<Method, SchedulerLock> locks = MethodIntrospector.selectMethods(ClassUtils.getUserClass(type),
					(MethodIntrospector.MetadataLookup<SchedulerLock>) (method) -> AnnotatedElementUtils
						.findMergedAnnotation(method, SchedulerLock.class));
			for (Map.Entry<Method, SchedulerLock> entry : locks.entrySet()) {
				SchedulerLock lock = entry.getValue();
				Duration asked = parse(lock.lockAtMostFor());
				if (asked != null && asked.compareTo(this.maxHold) > 0) {
					Method method = entry.getKey();
					tooLong.add("lockAtMostFor \"" + lock.lockAtMostFor() + "\" (" + Durations.format(asked)
							+ ") of @SchedulerLock(name = \"" + lock.name() + "\") on "
							+ method.getDeclaringClass().getName() + "." + method.getName() + "()");
					longest = max(longest, asked);
				}
			}
		}
		if (!tooLong.isEmpty()) {
			throw new SchedulerLockMaxHoldException(this.maxHold, longest, List.copyOf(tooLong));
		}
	}

	/**
	 * Parses a duration as ShedLock does ({@code 10m}, {@code PT10M}, a number of
	 * milliseconds), after resolving placeholders; {@code null} when empty, or when it
	 * cannot be read (ShedLock reports that itself).
	 */
	private @Nullable Duration parse(String value) {
		if (!StringUtils.hasText(value)) {
			return null;
		}
		try {
			String resolved = this.beanFactory.resolveEmbeddedValue(value);
			return StringUtils.hasText(resolved) ? DurationStyle.detectAndParse(resolved.trim()) : null;
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private static Duration max(Duration a, Duration b) {
		return (a.compareTo(b) >= 0) ? a : b;
	}

}
