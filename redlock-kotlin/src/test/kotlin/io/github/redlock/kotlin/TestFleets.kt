package io.github.redlock.kotlin

import io.github.redlock.autoconfigure.RedlockAutoConfiguration
import io.github.redlock.embedded.RedisFleetExtension
import io.github.redlock.engine.RedlockRegistry
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/**
 * A started registry over the fleet's nodes, as another process would have; the restart
 * guard is off, since the nodes were just started.
 */
internal fun RedisFleetExtension.startRegistry(): RedlockRegistry =
	RedlockRegistry.builder().nodes(uris()).restartGuard(false).build().start()

/**
 * An application context on the fleet's nodes with the starter's auto-configuration and
 * Spring Boot's class-based proxies.
 */
internal fun RedisFleetExtension.contextRunner(): ApplicationContextRunner = ApplicationContextRunner()
	.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration::class.java, AopAutoConfiguration::class.java))
	.withPropertyValues(*uris().mapIndexed { i, uri -> "redlock.nodes[$i]=$uri" }.toTypedArray(),
			"redlock.restart-guard=false")

/** Runs a test in the context; unlike [ApplicationContextRunner.run], returns nothing, as a test must. */
internal fun ApplicationContextRunner.runTest(test: (AssertableApplicationContext) -> Unit) {
	run(test)
}
