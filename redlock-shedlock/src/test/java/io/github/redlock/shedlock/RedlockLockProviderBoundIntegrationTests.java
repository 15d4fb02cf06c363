package io.github.redlock.shedlock;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockRegistry;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import net.javacrumbs.shedlock.core.LockConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The provider never waits for an acquisition without a bound (issue 23, item 3): should
 * the registry never decide (a defect of the engine, which issue 23's item 2 was), the
 * scheduled task's thread gets a {@link LockAcquisitionException} after the registry's
 * {@link LockRegistry#decisionBound decision bound}, not a hang. The registry here is a
 * real one over real nodes, except that its acquisitions are never decided.
 * <p>
 * Before the fix the provider's untimed {@code get()} hung: this test failed with
 * "Expecting CompletableFuture to be completed within 60L Seconds" on the lock call.
 */
class RedlockLockProviderBoundIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final RedlockRegistry registry = RedlockRegistry.builder()
		.nodes(fleet.uris())
		.restartGuard(false)
		.build()
		.start();

	private final List<CompletableFuture<?>> undecided = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		this.registry.close();
	}

	@Test
	void anAcquisitionThatIsNeverDecidedFailsAfterTheRegistrysBound() {
		RedlockLockProvider provider = new RedlockLockProvider(neverDeciding(this.registry));
		LockConfiguration configuration = new LockConfiguration(Instant.now(), "bound", Duration.ofSeconds(10),
				Duration.ZERO);
		CompletableFuture<Object> outcome = CompletableFuture.supplyAsync(() -> {
			try {
				return provider.lock(configuration);
			}
			catch (RuntimeException ex) {
				return ex;
			}
		});
		assertThat(outcome).succeedsWithin(60, TimeUnit.SECONDS)
			.isInstanceOf(LockAcquisitionException.class)
			.asString()
			.contains("ShedLock lock 'bound' was not acquired: the registry did not decide its attempt within");
		// abandoned: a lease granted later would be released at once
		assertThat(this.undecided).singleElement().matches(CompletableFuture::isCancelled);
	}

	/**
	 * Returns the registry, except that its acquisitions never complete.
	 */
	private LockRegistry neverDeciding(LockRegistry real) {
		return (LockRegistry) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { LockRegistry.class },
				(proxy, method, args) -> {
					if (method.getName().equals("acquireAsync")) {
						CompletableFuture<?> never = new CompletableFuture<>();
						this.undecided.add(never);
						return never;
					}
					try {
						return method.invoke(real, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

}
