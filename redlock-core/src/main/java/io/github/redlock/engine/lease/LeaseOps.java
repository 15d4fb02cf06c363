package io.github.redlock.engine.lease;

import java.util.concurrent.CompletableFuture;

import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import org.jspecify.annotations.Nullable;

/**
 * How a held lease of one kind acts on the nodes and in this registry: the script that
 * extends it, how it is released, and whom its end concerns (a kind that its key's line
 * counts ends the lease's {@code LineHold} there, as the lease ended). Each kind declares
 * its own beside its acquisition, so that a {@link RedlockLease} is the same for every
 * kind. A lease tells its end once: by {@link #ended}, or by {@link #release} with an
 * {@code afterQuorum}, which calls {@link #released} once a quorum is done with it (or
 * the kind tells the end itself, as an exclusive lease whose release keeps the turn
 * does).
 *
 * @author redlock contributors
 */
public interface LeaseOps {

	/**
	 * Sends the extension to one node, answering 1 where the lease's value is still held.
	 * @param args the secret, the ttl in ms and the counter retention in ms
	 */
	void extend(QuorumMember node, String[] args, int index, NodeClient.ReplyHandler replies);

	/**
	 * Deletes the lease's value on every node.
	 * @param secret the value's secret part
	 * @param token the lease's fencing token
	 * @param acquisition the acquisition that wrote the value: each node's deletion goes
	 * out once that node answered it
	 * @param afterQuorum run once a quorum is done with it, or {@code null} for the
	 * clean-up of a lease that was lost (whose end was told already)
	 * @param warnKey as for {@link NodeFleet#releaseEverywhere}
	 * @return as {@link NodeFleet#releaseEverywhere}
	 */
	CompletableFuture<Boolean> release(NodeFleet fleet, String secret, long token, QuorumCall acquisition,
			NodeFleet.@Nullable AfterQuorum afterQuorum, @Nullable String warnKey);

	/**
	 * Tells this registry that the lease ended without a release (lost, or at the end
	 * asked for).
	 */
	void ended();

	/**
	 * Tells this registry that a quorum of nodes is done with the lease's release.
	 * @param queuedBehind as for {@link NodeFleet.AfterQuorum#done}
	 */
	void released(boolean queuedBehind);

	/**
	 * Returns the operations of a kind whose extension and release are each one script
	 * and whose end concerns this registry alike however it came.
	 * @param extend the extension script: its arguments are the secret, the ttl in ms,
	 * the counter retention in ms, then {@code extra}
	 * @param extendKeys the extension's keys
	 * @param release the release script: its arguments are the secret, then
	 * {@code releaseExtra}
	 * @param releaseKeys the release's keys
	 * @param extra what follows the extension's base arguments, such as a permit's slot
	 * @param releaseExtra what follows the secret in the release
	 * @param gone run once when the lease ends (released on a quorum, lost, or at its
	 * end), to wake the waiters of this registry that it kept out
	 */
	static LeaseOps scripted(Script extend, String[] extendKeys, Script release, String[] releaseKeys, String[] extra,
			String[] releaseExtra, Runnable gone) {
		return new ScriptedLeaseOps(extend, extendKeys, release, releaseKeys, extra, releaseExtra, gone);
	}

}
