package io.github.redlock.engine.lease;

import java.util.Arrays;

import io.github.redlock.engine.node.Script;

/**
 * How a read lock, a write lock or a permit acts on the nodes once held: the scripts that
 * extend and release it, with their keys and the arguments that follow the secret, and
 * whom its end concerns. A {@link RedlockLease} without one is an exclusive lock.
 *
 * @param extend the extension script: its arguments are the secret, the ttl in ms, the
 * counter retention in ms, then {@code extra}
 * @param extendKeys the extension's keys
 * @param release the release script: its arguments are the secret, then {@code extra}
 * @param releaseKeys the release's keys
 * @param extra what follows the extension's base arguments, such as a permit's slot
 * @param releaseExtra what follows the secret in the release: {@code extra}, or more (a
 * permit's release hint channel and message)
 * @param gone run once when the lease ends (released on a quorum, lost, or at its end),
 * to wake the waiters of this registry that it kept out
 * @author redlock contributors
 */
public record LeaseOps(Script extend, String[] extendKeys, Script release, String[] releaseKeys, String[] extra,
		String[] releaseExtra, Runnable gone) {

	/**
	 * Lease operations whose release takes the same extra arguments as the extension.
	 */
	public LeaseOps(Script extend, String[] extendKeys, Script release, String[] releaseKeys, String[] extra,
			Runnable gone) {
		this(extend, extendKeys, release, releaseKeys, extra, extra, gone);
	}

	/**
	 * Returns the extension's arguments: {@code base} (secret, ttl, retention) and the
	 * extra ones.
	 */
	String[] extendArgs(String[] base) {
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
	String[] releaseArgs(String secret) {
		String[] args = new String[1 + this.releaseExtra.length];
		args[0] = secret;
		System.arraycopy(this.releaseExtra, 0, args, 1, this.releaseExtra.length);
		return args;
	}

}
