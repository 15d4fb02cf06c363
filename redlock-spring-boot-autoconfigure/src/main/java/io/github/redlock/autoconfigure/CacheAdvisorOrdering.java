package io.github.redlock.autoconfigure;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Puts Spring's cache advisor outside the {@code @DistributedLock} advisor when neither
 * order was chosen: {@code @EnableCaching} and {@code @EnableTransactionManagement} both
 * default to {@link Ordered#LOWEST_PRECEDENCE}, and the lock defaults to just before the
 * transaction, so without this a cache hit would take the lock (a quorum round trip that
 * can fail, or skip the call) before the cache could answer. With it, a method that has
 * {@code @Cacheable}, {@code @DistributedLock} and {@code @Transactional} checks the
 * cache, then locks, then begins the transaction. An order set on {@code @EnableCaching}
 * or in {@code redlock.order} is left as it is.
 *
 * @author redlock contributors
 */
final class CacheAdvisorOrdering implements BeanFactoryPostProcessor, EnvironmentAware {

	/** The bean name {@code @EnableCaching} registers its advisor under. */
	static final String CACHE_ADVISOR = "org.springframework.cache.config.internalCacheAdvisor";

	// set by the container (EnvironmentAware) before the post-processing
	@SuppressWarnings("NullAway.Init")
	private Environment environment;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		if (this.environment.containsProperty("redlock.order") || !beanFactory.containsBeanDefinition(CACHE_ADVISOR)) {
			return;
		}
		for (String name : beanFactory.getBeanNamesForAnnotation(EnableCaching.class)) {
			EnableCaching enableCaching = beanFactory.findAnnotationOnBean(name, EnableCaching.class, false);
			if (enableCaching != null && enableCaching.order() != Ordered.LOWEST_PRECEDENCE) {
				return;
			}
		}
		BeanDefinition advisor = beanFactory.getBeanDefinition(CACHE_ADVISOR);
		if (!advisor.getPropertyValues().contains("order")) {
			advisor.getPropertyValues().add("order", RedlockProperties.DEFAULT_ORDER - 1);
		}
	}

}
