package io.github.redlock.engine.node;

import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * The generations of one node's lock connection, and the one the node's trust vouched
 * for. A generation ends when the lock connection drops and when the registry stops and
 * closes it: whatever answers on a later connection may be a server that restarted in
 * between and forgot its locks.
 * <p>
 * <b>Invariants.</b> A reply counts only on the vouched connection generation. A script
 * call takes the {@link Generation} current before it is sent; the trust lets it go only
 * if that generation {@link Generation#isVouched() is vouched for} (with the restart
 * guard on), and its reply counts only if the generation is
 * {@link Generation#stillCurrent() still current} when it arrives. Only a restart check
 * that ran to its end on a generation vouches for it ({@link #vouch}); a later generation
 * is never vouched for by an earlier check, and {@link #revoke()} (a lost marker, a
 * refused permission, a periodic re-check) leaves none vouched. Generations are handles
 * compared by identity, so no other code keeps or compares a count of drops.
 *
 * @author redlock contributors
 */
final class ConnectionGenerations {

	private final AtomicReference<Generation> current = new AtomicReference<>(new Generation());

	/** The generation a finished check vouched for, or {@code null} for none. */
	private volatile @Nullable Generation vouched;

	/**
	 * Returns the generation of the connection as it is now.
	 */
	@SuppressWarnings("NullAway") // set to a new generation only, never to null
	Generation current() {
		return this.current.get();
	}

	/**
	 * Ends the current generation: the lock connection dropped, or the registry closes
	 * it.
	 */
	void moveOn() {
		this.current.set(new Generation());
	}

	/**
	 * Vouches for {@code checked}, on which a restart check ran to its end; no later
	 * generation.
	 */
	void vouch(Generation checked) {
		this.vouched = checked;
	}

	/**
	 * Vouches for no generation, until a check runs again.
	 */
	void revoke() {
		this.vouched = null;
	}

	/**
	 * Returns whether the current generation is vouched for.
	 */
	boolean currentIsVouched() {
		return current().isVouched();
	}

	/**
	 * One generation of the lock connection: an opaque handle, equal only to itself.
	 */
	final class Generation {

		private Generation() {
		}

		/**
		 * Returns whether the connection has not dropped nor been closed since this
		 * generation was current: a reply that arrives now came from the server that the
		 * command was sent to.
		 */
		boolean stillCurrent() {
			return ConnectionGenerations.this.current.get() == this;
		}

		/**
		 * Returns whether a finished check vouched for this generation.
		 */
		boolean isVouched() {
			return ConnectionGenerations.this.vouched == this;
		}

	}

}
