package io.github.redlock.engine.node;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.resource.ClientResources;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;

/**
 * Hands on the first of a deletion's reply and the node timeout: the command itself waits
 * longer in Lettuce ({@link CommandTimeouts}), so that it is written late rather than
 * never, and its late reply is dropped here.
 *
 * @author redlock contributors
 */
final class DeletionReply extends AtomicBoolean implements NodeClient.ReplyHandler, TimerTask {

	private final int index;

	private final NodeClient.ReplyHandler replies;

	private final ClientResources resources;

	private final NodeErrors errors;

	private final Timeout timeout;

	DeletionReply(int index, NodeClient.ReplyHandler replies, ClientResources resources, Duration nodeTimeout,
			NodeErrors errors) {
		this.index = index;
		this.replies = replies;
		this.resources = resources;
		this.errors = errors;
		this.timeout = resources.timer().newTimeout(this, nodeTimeout.toNanos(), TimeUnit.NANOSECONDS);
	}

	@Override
	public void reply(int index, NodeReply reply) {
		if (compareAndSet(false, true)) {
			this.timeout.cancel();
			this.replies.reply(index, reply);
		}
	}

	@Override
	public void run(Timeout timeout) {
		if (!get()) {
			// off the timer's thread, as Lettuce completes its own timeouts
			this.resources.eventExecutorGroup().execute(() -> {
				if (compareAndSet(false, true)) {
					this.replies.reply(this.index, NodeReply
						.failed(this.errors.classify(new RedisCommandTimeoutException("deletion timed out"))));
				}
			});
		}
	}

}
