package io.github.redlock.engine.waiting;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redlock.engine.quorum.MonotonicClock;

/**
 * A {@link ScheduledExecutorService} with its own clock, which runs nothing until the
 * test {@linkplain #advance advances} that clock: then every task due by the new time
 * runs on the test's thread, in the order of the times they were due (tasks due at the
 * same time in the order they were scheduled), each with the clock set to its time. A
 * task that schedules another due within the advance sees it run in the same advance.
 * {@code execute} and {@code submit} schedule at the current time, so they run on the
 * next advance (even by zero, {@link #runDue()}). A cancelled task never runs and no
 * longer counts as {@link #pending()}. After {@link #shutdown()} scheduling is refused
 * with a {@link RejectedExecutionException}, as a closing registry's scheduler does.
 * <p>
 * A task that throws fails the advance that ran it (after the others due ran), so that a
 * test sees it rather than a future swallowing it.
 */
final class ManualScheduler implements ScheduledExecutorService, MonotonicClock {

	private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();

	private long now;

	private long sequence;

	private boolean shutdown;

	private final List<Throwable> failures = new ArrayList<>();

	/**
	 * Starts the clock at {@code startNanos}: not zero, so that a test sees code that
	 * takes 0 for "unset" misread a time.
	 */
	ManualScheduler(long startNanos) {
		this.now = startNanos;
	}

	ManualScheduler() {
		this(TimeUnit.DAYS.toNanos(3));
	}

	@Override
	public synchronized long nanoTime() {
		return this.now;
	}

	/** Moves the clock on by {@code nanos}, running every task due by then. */
	void advance(long nanos) {
		if (nanos < 0) {
			throw new IllegalArgumentException("the clock goes forward only: " + nanos);
		}
		long target;
		synchronized (this) {
			target = this.now + nanos;
		}
		while (true) {
			Task<?> next;
			synchronized (this) {
				next = this.queue.peek();
				if (next == null || next.time - target > 0) {
					this.now = target;
					break;
				}
				this.queue.poll();
				this.now = next.time;
			}
			next.runDue();
		}
		List<Throwable> thrown;
		synchronized (this) {
			thrown = new ArrayList<>(this.failures);
			this.failures.clear();
		}
		if (!thrown.isEmpty()) {
			AssertionError error = new AssertionError("a scheduled task threw", thrown.get(0));
			thrown.stream().skip(1).forEach(error::addSuppressed);
			throw error;
		}
	}

	void advance(Duration duration) {
		advance(duration.toNanos());
	}

	/** Runs what is due now, without moving the clock. */
	void runDue() {
		advance(0);
	}

	/** How many tasks are scheduled and neither ran nor were cancelled. */
	synchronized int pending() {
		return this.queue.size();
	}

	/**
	 * How long until the next task is due, in nanoseconds, or -1 when none is scheduled.
	 */
	synchronized long nextDueIn() {
		Task<?> next = this.queue.peek();
		return (next != null) ? next.time - this.now : -1;
	}

	private synchronized <V> Task<V> add(Callable<V> callable, long delayNanos, long periodNanos) {
		if (this.shutdown) {
			throw new RejectedExecutionException("shut down");
		}
		Task<V> task = new Task<>(callable, this.now + Math.max(0, delayNanos), periodNanos, this.sequence++);
		this.queue.add(task);
		return task;
	}

	private synchronized boolean remove(Task<?> task) {
		return this.queue.remove(task);
	}

	private synchronized void failed(Throwable failure) {
		this.failures.add(failure);
	}

	private synchronized void reschedule(Task<?> task) {
		if (!this.shutdown) {
			task.time = (task.period > 0) ? task.time + task.period : this.now - task.period;
			task.order = this.sequence++;
			this.queue.add(task);
		}
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		return add(Executors.callable(command), unit.toNanos(delay), 0);
	}

	@Override
	public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
		return add(callable, unit.toNanos(delay), 0);
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
		if (period <= 0) {
			throw new IllegalArgumentException("period " + period);
		}
		return add(Executors.callable(command), unit.toNanos(initialDelay), unit.toNanos(period));
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
		if (delay <= 0) {
			throw new IllegalArgumentException("delay " + delay);
		}
		return add(Executors.callable(command), unit.toNanos(initialDelay), -unit.toNanos(delay));
	}

	@Override
	public void execute(Runnable command) {
		add(Executors.callable(command), 0, 0);
	}

	@Override
	public <T> Future<T> submit(Callable<T> task) {
		return add(task, 0, 0);
	}

	@Override
	public <T> Future<T> submit(Runnable task, T result) {
		return add(Executors.callable(task, result), 0, 0);
	}

	@Override
	public Future<?> submit(Runnable task) {
		return add(Executors.callable(task), 0, 0);
	}

	@Override
	public synchronized void shutdown() {
		this.shutdown = true;
	}

	@Override
	public synchronized List<Runnable> shutdownNow() {
		this.shutdown = true;
		List<Runnable> waiting = new ArrayList<>();
		for (Task<?> task : this.queue) {
			waiting.add(task::runDue);
		}
		this.queue.clear();
		return waiting;
	}

	@Override
	public synchronized boolean isShutdown() {
		return this.shutdown;
	}

	@Override
	public synchronized boolean isTerminated() {
		return this.shutdown && this.queue.isEmpty();
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) {
		return isTerminated(); // nothing runs by itself: waiting would change nothing
	}

	@Override
	public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) {
		throw new UnsupportedOperationException("blocks until tasks ran, which only advance() does");
	}

	@Override
	public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit) {
		throw new UnsupportedOperationException("blocks until tasks ran, which only advance() does");
	}

	@Override
	public <T> T invokeAny(Collection<? extends Callable<T>> tasks) {
		throw new UnsupportedOperationException("blocks until tasks ran, which only advance() does");
	}

	@Override
	public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit) {
		throw new UnsupportedOperationException("blocks until tasks ran, which only advance() does");
	}

	private final class Task<V> implements ScheduledFuture<V> {

		private final Callable<V> callable;

		/** Positive: a fixed rate; negative: a fixed delay; 0: once. */
		private final long period;

		private long time;

		private long order;

		private boolean cancelled;

		private boolean done;

		private V result;

		private Throwable failure;

		Task(Callable<V> callable, long time, long period, long order) {
			this.callable = callable;
			this.time = time;
			this.period = period;
			this.order = order;
		}

		void runDue() {
			synchronized (ManualScheduler.this) {
				if (this.cancelled || this.done) {
					return;
				}
			}
			try {
				V value = this.callable.call();
				synchronized (ManualScheduler.this) {
					if (this.period == 0) {
						this.result = value;
						this.done = true;
					}
				}
			}
			catch (Throwable ex) {
				synchronized (ManualScheduler.this) {
					this.failure = ex;
					this.done = true;
				}
				failed(ex);
				return;
			}
			if (this.period != 0) {
				synchronized (ManualScheduler.this) {
					if (!this.cancelled) {
						reschedule(this);
					}
				}
			}
		}

		@Override
		public long getDelay(TimeUnit unit) {
			synchronized (ManualScheduler.this) {
				return unit.convert(this.time - ManualScheduler.this.now, TimeUnit.NANOSECONDS);
			}
		}

		@Override
		public int compareTo(Delayed other) {
			if (other instanceof Task<?> task) {
				int byTime = Long.compare(this.time - task.time, 0);
				return (byTime != 0) ? byTime : Long.compare(this.order, task.order);
			}
			return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			synchronized (ManualScheduler.this) {
				if (this.done || this.cancelled) {
					return false;
				}
				this.cancelled = true;
				remove(this);
				return true;
			}
		}

		@Override
		public boolean isCancelled() {
			synchronized (ManualScheduler.this) {
				return this.cancelled;
			}
		}

		@Override
		public boolean isDone() {
			synchronized (ManualScheduler.this) {
				return this.done || this.cancelled;
			}
		}

		@Override
		public V get() throws ExecutionException {
			synchronized (ManualScheduler.this) {
				if (this.cancelled) {
					throw new CancellationException();
				}
				if (!this.done) {
					throw new IllegalStateException("not run yet: advance the scheduler first");
				}
				if (this.failure != null) {
					throw new ExecutionException(this.failure);
				}
				return this.result;
			}
		}

		@Override
		public V get(long timeout, TimeUnit unit) throws ExecutionException, TimeoutException {
			synchronized (ManualScheduler.this) {
				if (!this.done && !this.cancelled) {
					throw new TimeoutException("not run yet: advance the scheduler first");
				}
			}
			return get();
		}

	}

}
