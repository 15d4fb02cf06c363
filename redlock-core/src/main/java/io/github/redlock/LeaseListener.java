package io.github.redlock;

/**
 * Told when a {@link Lease} is lost while its holder meant to keep it: the watchdog could
 * not extend it on a majority of nodes, another owner replaced it, or its validity ran
 * out. Runs on a library thread: return quickly and never block.
 *
 * @author redlock contributors
 */
@FunctionalInterface
public interface LeaseListener {

	/**
	 * Called once when the lease is lost.
	 * @param lease the lease
	 * @param cause why it was lost
	 */
	void leaseLost(Lease lease, LockLostException cause);

}
