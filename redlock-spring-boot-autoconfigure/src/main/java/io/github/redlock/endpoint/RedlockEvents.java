package io.github.redlock.endpoint;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redlock.LockLostException;
import io.github.redlock.engine.NodeState;
import io.github.redlock.engine.RegistryListener;
import org.jspecify.annotations.Nullable;

/**
 * The last events of a registry's locks and nodes that an operator looks for in an
 * incident, in a bounded ring: leases lost, releases no quorum confirmed, nodes going
 * down, kept out (the restart guard's entries) and counting again, and the operator's own
 * releases through the endpoint, granted or refused. A {@link RegistryListener}, so it
 * hears what the engine tells and decides nothing; nodes are URIs without credentials,
 * and no lock value is kept. Recording is a short lock around an array: cheap on the
 * registry's threads.
 *
 * @author redlock contributors
 * @see RedlockEndpoint
 */
public class RedlockEvents implements RegistryListener {

	/** How many events are kept by default. */
	public static final int DEFAULT_CAPACITY = 100;

	private final int capacity;

	private final Clock clock;

	private final ReentrantLock lock = new ReentrantLock();

	private final ArrayDeque<LockEvent> events;

	/**
	 * Creates a ring of the last {@link #DEFAULT_CAPACITY} events.
	 */
	public RedlockEvents() {
		this(DEFAULT_CAPACITY, Clock.systemUTC());
	}

	/**
	 * Creates a ring of the last {@code capacity} events.
	 * @param capacity how many events are kept, at least 1
	 * @param clock the clock that times them
	 */
	public RedlockEvents(int capacity, Clock clock) {
		if (capacity < 1) {
			throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
		}
		this.capacity = capacity;
		this.clock = clock;
		this.events = new ArrayDeque<>(capacity);
	}

	@Override
	public void lost(String key, Duration held, LockLostException cause) {
		record(LockEvent.Kind.LEASE_LOST, key, null, cause.getMessage());
	}

	@Override
	public void releaseNotConfirmed(String key) {
		record(LockEvent.Kind.RELEASE_NOT_CONFIRMED, key, null,
				"fewer than a quorum of nodes answered the release in time: the lock may stay held there until "
						+ "its TTL runs out");
	}

	@Override
	public void nodeChanged(String node, NodeState state, String detail) {
		record(switch (state) {
			case USABLE -> LockEvent.Kind.NODE_USABLE;
			case OUT -> LockEvent.Kind.NODE_OUT;
			case DOWN -> LockEvent.Kind.NODE_DOWN;
		}, null, node, detail);
	}

	/**
	 * Records an event, the oldest one making room once the ring is full.
	 * @param kind what happened
	 * @param key the lock's key, or {@code null}
	 * @param node the node, or {@code null}
	 * @param detail what happened, for an operator
	 */
	public void record(LockEvent.Kind kind, @Nullable String key, @Nullable String node, @Nullable String detail) {
		LockEvent event = new LockEvent(this.clock.instant().toString(), kind, key, node, detail);
		this.lock.lock();
		try {
			if (this.events.size() == this.capacity) {
				this.events.removeFirst();
			}
			this.events.addLast(event);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Returns the events kept, the newest first.
	 * @return the events
	 */
	public List<LockEvent> recent() {
		this.lock.lock();
		try {
			List<LockEvent> recent = new ArrayList<>(this.events);
			Collections.reverse(recent);
			return recent;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * One event.
	 *
	 * @param time when it was recorded, ISO-8601 in UTC
	 * @param kind what happened
	 * @param key the lock's key, or {@code null} for a node's event
	 * @param node the node, as a URI without credentials, or {@code null} for a lock's
	 * event
	 * @param detail what happened, for an operator, or {@code null}
	 */
	public record LockEvent(String time, Kind kind, @Nullable String key, @Nullable String node,
			@Nullable String detail) {

		/**
		 * What happened.
		 */
		public enum Kind {

			/** A lease this instance held was lost: expired, not extended, or revoked. */
			LEASE_LOST,

			/** A release was not confirmed by a quorum of nodes in time. */
			RELEASE_NOT_CONFIRMED,

			/** An operator released the leases this instance held on a key. */
			RELEASE_FORCED,

			/** An operator's release was refused: the release operation is off. */
			RELEASE_REFUSED,

			/** A node went down. */
			NODE_DOWN,

			/**
			 * A node is connected but kept out of quorums (the restart guard, for
			 * instance).
			 */
			NODE_OUT,

			/** A node counts toward quorums again. */
			NODE_USABLE

		}

	}

}
