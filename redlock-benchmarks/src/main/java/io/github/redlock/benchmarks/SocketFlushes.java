package io.github.redlock.benchmarks;

import java.util.concurrent.atomic.AtomicLongArray;

import io.lettuce.core.resource.NettyCustomizer;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * Counts, on every channel of the Lettuce resources it customizes, the flushes that reach
 * the socket and the writes each carries. Its handler sits next to the pipeline's head,
 * behind every handler that holds flushes back (the registry's write coalescing), so a
 * count here is one write system call at most, and the writes of a flush are the commands
 * it sends (one encoded buffer each).
 * <p>
 * The flushes are counted by how many writes they carry, up to {@link #LARGEST}; a
 * {@linkplain #snapshot snapshot} taken before and after a window gives the window's.
 */
final class SocketFlushes implements NettyCustomizer {

	/** The largest flush counted by its size; larger ones count as this size. */
	static final int LARGEST = 1024;

	private static final String HANDLER_NAME = "benchmarkSocketFlushes";

	/** Flushes by the writes they carried, 0 to {@link #LARGEST}. */
	private final AtomicLongArray bySize = new AtomicLongArray(LARGEST + 1);

	@Override
	public void afterBootstrapInitialized(Bootstrap bootstrap) {
	}

	@Override
	public void afterChannelInitialized(Channel channel) {
		channel.pipeline().addFirst(HANDLER_NAME, new Counter());
	}

	/**
	 * Returns how many flushes carried each number of writes so far.
	 */
	long[] snapshot() {
		long[] counts = new long[LARGEST + 1];
		for (int i = 0; i <= LARGEST; i++) {
			counts[i] = this.bySize.get(i);
		}
		return counts;
	}

	/**
	 * What the flushes of a window were: the difference of two snapshots.
	 *
	 * @param bySize flushes by the writes they carried
	 */
	record Window(long[] bySize) {

		static Window between(long[] start, long[] end) {
			long[] counts = new long[end.length];
			for (int i = 0; i < end.length; i++) {
				counts[i] = end[i] - start[i];
			}
			return new Window(counts);
		}

		long flushes() {
			long flushes = 0;
			for (long count : this.bySize) {
				flushes += count;
			}
			return flushes;
		}

		long writes() {
			long writes = 0;
			for (int size = 0; size < this.bySize.length; size++) {
				writes += size * this.bySize[size];
			}
			return writes;
		}

		/**
		 * Returns the size of the flush that carried the write at {@code percent} of all
		 * writes, smallest flushes first: the median is the flush size half the commands
		 * went out in or below. Zero without writes.
		 */
		int writeWeightedPercentile(double percent) {
			double rank = percent / 100.0 * writes();
			long seen = 0;
			for (int size = 1; size < this.bySize.length; size++) {
				seen += size * this.bySize[size];
				if (seen > 0 && seen >= rank) {
					return size;
				}
			}
			return 0;
		}

	}

	/**
	 * One channel's counter: every method runs on the channel's event loop.
	 */
	private final class Counter extends ChannelOutboundHandlerAdapter {

		private int writes;

		@Override
		public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
			this.writes++;
			ctx.write(msg, promise);
		}

		@Override
		public void flush(ChannelHandlerContext ctx) {
			SocketFlushes.this.bySize.incrementAndGet(Math.min(this.writes, LARGEST));
			this.writes = 0;
			ctx.flush();
		}

	}

}
