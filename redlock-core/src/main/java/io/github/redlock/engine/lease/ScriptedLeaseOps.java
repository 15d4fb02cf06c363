package io.github.redlock.engine.lease;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import org.jspecify.annotations.Nullable;

/**
 * {@link LeaseOps} of one extension script and one release script, the release undone as
 * an acquisition's entry is ({@link NodeFleet#undoEverywhere}); see
 * {@link LeaseOps#scripted}.
 *
 * @author redlock contributors
 */
record ScriptedLeaseOps(Script extendScript, String[] extendKeys, Script releaseScript, String[] releaseKeys,
		String[] extra, String[] releaseExtra, Runnable gone) implements LeaseOps {

	@Override
	public void extend(QuorumMember node, String[] args, int index, NodeClient.ReplyHandler replies) {
		node.eval(this.extendScript, this.extendKeys, extendArgs(args), index, replies);
	}

	@Override
	public CompletableFuture<Boolean> release(NodeFleet fleet, String secret, long token, QuorumCall acquisition,
			NodeFleet.@Nullable AfterQuorum afterQuorum, @Nullable String warnKey) {
		return fleet.undoEverywhere(this.releaseScript, this.releaseKeys, releaseArgs(secret), acquisition,
				(afterQuorum != null) ? () -> afterQuorum.done(false) : null, warnKey);
	}

	@Override
	public void ended() {
		this.gone.run();
	}

	@Override
	public void released(boolean queuedBehind) {
		this.gone.run();
	}

	/**
	 * Returns the extension's arguments: {@code base} (secret, ttl, retention) and the
	 * extra ones.
	 */
	private String[] extendArgs(String[] base) {
		if (this.extra.length == 0) {
			return base;
		}
		String[] args = Arrays.copyOf(base, base.length + this.extra.length);
		System.arraycopy(this.extra, 0, args, base.length, this.extra.length);
		return args;
	}

	/**
	 * Returns the release's arguments: the secret and the extra ones.
	 */
	private String[] releaseArgs(String secret) {
		String[] args = new String[1 + this.releaseExtra.length];
		args[0] = secret;
		System.arraycopy(this.releaseExtra, 0, args, 1, this.releaseExtra.length);
		return args;
	}

}
