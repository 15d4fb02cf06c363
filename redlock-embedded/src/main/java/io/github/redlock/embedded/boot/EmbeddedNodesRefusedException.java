package io.github.redlock.embedded.boot;

/**
 * Thrown when {@code redlock.nodes} is unset and the development mode would start local
 * nodes outside a test without being asked to: in production that gives every instance
 * locks of its own, with no exclusion between instances.
 *
 * @author redlock contributors
 */
public class EmbeddedNodesRefusedException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 */
	public EmbeddedNodesRefusedException() {
		super("redlock.nodes is not set, and redlock-embedded, which would start local redis-server nodes for"
				+ " development and tests, is on the classpath of an application that is not running a test: every"
				+ " instance would lock on nodes of its own, with no exclusion between instances");
	}

}
