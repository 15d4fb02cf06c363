package io.github.redlock.embedded;

import java.util.List;

import org.jspecify.annotations.Nullable;
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
 * <p>
 * {@link #tlsNodes(int, boolean)} runs nodes that listen only on TLS, with
 * {@link TestCertificates} made when the fleet starts (once for the class in a
 * {@code static} field) and deleted when it stops; {@link #certificates()} gives them to
 * the clients under test.
 * <p>
 * Annotated with {@link RedlockServiceConnection}, a {@code static} field also supplies
 * the nodes of a {@code @SpringBootTest}'s application context: the fleet then stops when
 * that context closes, after the test class.
 *
 * @author redlock contributors
 */
public final class RedisFleetExtension
		implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

	private final int size;

	private final boolean tls;

	private final boolean requireClientCertificate;

	private volatile @Nullable RedisFleet fleet;

	private volatile @Nullable TestCertificates certificates;

	private volatile boolean perTest;

	private volatile boolean contextOwned;

	private RedisFleetExtension(int size, boolean tls, boolean requireClientCertificate) {
		this.size = size;
		this.tls = tls;
		this.requireClientCertificate = requireClientCertificate;
	}

	/**
	 * Creates an extension for a fleet of the given size.
	 * @param size how many nodes
	 * @return the extension
	 */
	public static RedisFleetExtension nodes(int size) {
		return new RedisFleetExtension(size, false, false);
	}

	/**
	 * Creates an extension for a fleet of the given size whose nodes listen only on TLS,
	 * with {@link #certificates() certificates} of its own.
	 * @param size how many nodes
	 * @param requireClientCertificate whether the nodes refuse clients that do not
	 * present the {@link TestCertificates#clientCertificate() client certificate}
	 * @return the extension
	 * @see RedisFleet#startTls(int, TestCertificates, boolean)
	 */
	public static RedisFleetExtension tlsNodes(int size, boolean requireClientCertificate) {
		return new RedisFleetExtension(size, true, requireClientCertificate);
	}

	@Override
	public synchronized void beforeAll(ExtensionContext context) {
		if (this.fleet == null) {
			this.fleet = startFleet();
		}
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		if (this.fleet == null) {
			this.perTest = true;
			this.fleet = startFleet();
		}
	}

	private RedisFleet startFleet() {
		if (!this.tls) {
			return RedisFleet.start(this.size);
		}
		// before making certificates: a binary without TLS fails at once
		RedisServerBinary.get().requireTls();
		TestCertificates generated = TestCertificates.generate();
		this.certificates = generated;
		try {
			return RedisFleet.startTls(this.size, generated, this.requireClientCertificate);
		}
		catch (RuntimeException ex) {
			this.certificates = null;
			generated.close();
			throw ex;
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
		if (!this.contextOwned) {
			stop();
		}
	}

	/**
	 * Returns the fleet for a Spring application context of a
	 * {@link RedlockServiceConnection} test, starting it if no JUnit callback has, and
	 * hands its stopping to that context: it stops when the context closes (after its
	 * lock registry), not after the test class.
	 */
	synchronized RedisFleet attachToContext() {
		if (this.fleet == null) {
			this.fleet = startFleet();
		}
		this.contextOwned = true;
		return this.fleet;
	}

	/**
	 * Stops the fleet of a context that closes.
	 */
	synchronized void detachFromContext() {
		this.contextOwned = false;
		stop();
	}

	private void stop() {
		RedisFleet running = this.fleet;
		TestCertificates generated = this.certificates;
		this.fleet = null;
		this.certificates = null;
		try {
			if (running != null) {
				running.close();
			}
		}
		finally {
			if (generated != null) {
				generated.close();
			}
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
	 * Returns the certificates of a {@link #tlsNodes(int, boolean) TLS fleet}: the CA to
	 * trust, the client certificate to present, and the server certificates.
	 * @return the certificates
	 * @throws IllegalStateException if the nodes are plain ones, or no test runs
	 */
	public TestCertificates certificates() {
		if (!this.tls) {
			throw new IllegalStateException("Plain nodes have no certificates: use RedisFleetExtension.tlsNodes");
		}
		TestCertificates generated = this.certificates;
		if (generated == null) {
			throw new IllegalStateException("The certificates exist only while a test runs");
		}
		return generated;
	}

	/**
	 * Returns the URIs of the running fleet's nodes.
	 * @return the URIs
	 */
	public List<String> uris() {
		return fleet().uris();
	}

}
