package io.github.redlock.autoconfigure.web;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.web.LockExceptionHandler;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ProblemDetail;

/**
 * Auto-configuration of the {@link LockExceptionHandler} in Spring MVC and WebFlux
 * applications: a refused lock answers 409 or 503 with a problem detail, unless
 * {@code redlock.web.problem-details.enabled} is {@code false}.
 *
 * @author redlock contributors
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class)
@ConditionalOnWebApplication
@ConditionalOnClass(ProblemDetail.class)
@ConditionalOnBooleanProperty(name = "redlock.web.problem-details.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedlockWebProperties.class)
public final class RedlockWebAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockExceptionHandler redlockLockExceptionHandler() {
		return new LockExceptionHandler();
	}

}
