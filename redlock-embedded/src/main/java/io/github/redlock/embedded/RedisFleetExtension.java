package io.github.redlock.embedded;

import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that runs a {@link RedisFleet} for a test class or a test.
 * <p>
 * In a {@code static} field, the fleet starts once for the class, is
 * {@link RedisFleet#heal() healed} (faults undone, keys deleted) after each test, and
 * stops after the class. In an instance field, each test gets a fresh fleet that stops
 * after it. Either way every process stops when the tests end, pass or fail.
 *
 * <pre class="code">
 * &#064;RegisterExtension
 * static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);
 * </pre>
 *
 * @author redlock contributors
 */
public final class RedisFleetExtension
		implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

	private final int size;

	private volatile RedisFleet fleet;

	private volatile boolean perTest;

	private RedisFleetExtension(int size) {
		this.size = size;
	}

	/**
	 * Creates an extension for a fleet of the given size.
	 * @param size how many nodes
	 * @return the extension
	 */
	public static RedisFleetExtension nodes(int size) {
		return new RedisFleetExtension(size);
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.fleet = RedisFleet.start(this.size);
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		if (this.fleet == null) {
			this.perTest = true;
			this.fleet = RedisFleet.start(this.size);
		}
	}

	@Override
	public void afterEach(ExtensionContext context) {
		if (this.perTest) {
			stop();
		}
		else if (this.fleet != null) {
			this.fleet.heal();
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		stop();
	}

	private void stop() {
		RedisFleet running = this.fleet;
		this.fleet = null;
		if (running != null) {
			running.close();
		}
	}

	/**
	 * Returns the running fleet.
	 * @return the fleet
	 */
	public RedisFleet fleet() {
		RedisFleet running = this.fleet;
		if (running == null) {
			throw new IllegalStateException("The fleet runs only while a test runs");
		}
		return running;
	}

	/**
	 * Returns one node of the running fleet.
	 * @param index its index, from 0
	 * @return the node
	 */
	public RedisNode node(int index) {
		return fleet().node(index);
	}

	/**
	 * Returns the URIs of the running fleet's nodes.
	 * @return the URIs
	 */
	public List<String> uris() {
		return fleet().uris();
	}

}
