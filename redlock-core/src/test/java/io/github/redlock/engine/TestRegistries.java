package io.github.redlock.engine;

import java.util.ArrayList;
import java.util.List;

import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The registry fixture of the core tests: a builder preset the way most tests need it,
 * and an extension that closes every registry a test made.
 * <p>
 * {@link #builder(RedisFleetExtension)} (and {@link #builder(RedisFleet)} for a fleet the
 * test starts itself, {@link #builder(List)} for nodes it assembles itself) sets exactly
 * two options, and nothing else:
 * <ul>
 * <li>{@code nodes(fleet.uris())}: every node of the test's fleet, in fleet order (or the
 * given nodes);</li>
 * <li>{@code restartGuard(false)}: the fleet's nodes are fresh processes, so the guard
 * would only hold a test's first acquisitions back for a restart that never happened
 * ({@code RestartGuardIntegrationTests} and the other guard tests cover the guard and
 * turn it on with {@code restartGuard(true)}, which overrides this default).</li>
 * </ul>
 * The timeouts, TTLs, retry delays and hints are left to each test: they differ from test
 * to test (the node timeout alone takes ten values) and are usually what the test is
 * about, so a shared default would hide them. A test whose point is a builder setting
 * keeps writing it.
 * <p>
 * Registered as an instance field, the extension closes, after each test, every registry
 * made through {@link #start(RedlockRegistry.Builder)} or handed to
 * {@link #add(RedlockRegistry)}, in that order (as the tests' own lists of registries
 * did), each even when the test or another close failed:
 *
 * <pre class="code">
 * &#064;RegisterExtension
 * final TestRegistries registries = new TestRegistries();
 *
 * RedlockRegistry registry = this.registries.start(TestRegistries.builder(fleet).nodeTimeout(...));
 * </pre>
 *
 * @author redlock contributors
 */
public final class TestRegistries implements AfterEachCallback {

	private final List<RedlockRegistry> made = new ArrayList<>();

	/**
	 * Returns a builder with the fleet's nodes and the restart guard off.
	 * @param fleet the test's fleet
	 * @return a builder the test can go on setting
	 */
	public static RedlockRegistry.Builder builder(RedisFleetExtension fleet) {
		return RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false);
	}

	/**
	 * Returns a builder with the nodes of a fleet the test started itself, and the
	 * restart guard off.
	 * @param fleet the fleet
	 * @return a builder the test can go on setting
	 */
	public static RedlockRegistry.Builder builder(RedisFleet fleet) {
		return RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false);
	}

	/**
	 * Returns a builder with nodes the test assembled itself (through proxies, as an ACL
	 * user, a part of its fleet), and the restart guard off.
	 * @param nodes the node URIs
	 * @return a builder the test can go on setting
	 */
	public static RedlockRegistry.Builder builder(List<String> nodes) {
		return RedlockRegistry.builder().nodes(nodes).restartGuard(false);
	}

	/**
	 * Builds and starts a registry, closed after the test.
	 * @param builder the registry's options
	 * @return the started registry
	 */
	public RedlockRegistry start(RedlockRegistry.Builder builder) {
		return add(builder.build()).start();
	}

	/**
	 * Closes the registry after the test (named as the {@code List.add} that tests called
	 * on their own list of registries before).
	 * @param registry a registry the test made
	 * @return the same registry
	 */
	public synchronized RedlockRegistry add(RedlockRegistry registry) {
		this.made.add(registry);
		return registry;
	}

	@Override
	public void afterEach(ExtensionContext context) {
		List<RedlockRegistry> registries;
		synchronized (this) {
			registries = new ArrayList<>(this.made);
			this.made.clear();
		}
		RuntimeException failure = null;
		for (RedlockRegistry registry : registries) {
			try {
				registry.close();
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

}
