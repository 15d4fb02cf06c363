package io.github.redlock.virtualthreads;

import java.util.concurrent.CompletableFuture;

/**
 * A deliberately broken lock path, for showing that {@link BlockingInSynchronizedChecker}
 * finds what it looks for: a blocking call in a {@code synchronized} method, and one
 * reached through a project method from a {@code synchronized} block.
 */
class PinningFixture {

	private final Object monitor = new Object();

	private final CompletableFuture<String> reply = new CompletableFuture<>();

	synchronized void sleepsHoldingTheMonitor() throws InterruptedException {
		Thread.sleep(1);
	}

	String waitsForAReplyThroughAHelper() throws Exception {
		synchronized (this.monitor) {
			return awaitReply();
		}
	}

	private String awaitReply() throws Exception {
		return this.reply.get();
	}

	String waitsOutsideTheMonitor() throws Exception {
		synchronized (this.monitor) {
			this.monitor.notifyAll();
		}
		return this.reply.get();
	}

}
