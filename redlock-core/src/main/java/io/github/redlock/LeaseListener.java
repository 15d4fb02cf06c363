package io.github.redlock;

/**
 * Told when a {@link Lease} is lost while its holder meant to keep it: the watchdog could
 * not extend it on a majority of nodes, another owner replaced it, or its validity ran
 * out. Runs on one of the registry's callback threads, never on a thread that receives
 * the nodes' replies, so it may release the lease or do brief blocking work; it is told
 * at once, on the caller's thread, when added to a lease that is already lost.
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
