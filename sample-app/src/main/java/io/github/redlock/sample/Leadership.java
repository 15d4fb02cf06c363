package io.github.redlock.sample;

import java.time.Instant;
import java.util.Optional;

import io.github.redlock.LockRegistry;
import io.github.redlock.integration.RedlockLockRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Whether this instance leads the {@value LeaderConfiguration#ROLE} role, since when, and
 * under which fencing token: hears Spring Integration's leader events and logs a line for
 * each.
 */
@Component
public class Leadership {

	private static final Log logger = LogFactory.getLog(Leadership.class);

	private final LockRegistryLeaderInitiator initiator;

	private final RedlockLockRegistry locks;

	private final LockRegistry redlock;

	private final String instance;

	private volatile Term term;

	public Leadership(LockRegistryLeaderInitiator initiator, RedlockLockRegistry locks, LockRegistry redlock,
			SampleProperties properties) {
		this.initiator = initiator;
		this.locks = locks;
		this.redlock = redlock;
		this.instance = properties.getInstance();
	}

	@EventListener
	void granted(OnGrantedEvent event) {
		// published on the initiator's thread, which holds the lock
		long token = this.locks.obtain(event.getRole()).fencingToken();
		this.term = new Term(Instant.now(), token);
		logger.info("Instance " + this.instance + " now leads '" + event.getRole() + "' under fencing token " + token);
	}

	@EventListener
	void revoked(OnRevokedEvent event) {
		this.term = null;
		logger.info("Instance " + this.instance + " no longer leads '" + event.getRole() + "'");
	}

	/**
	 * Returns this instance's view of the role.
	 * @return the status
	 */
	public Status status() {
		boolean leader = this.initiator.getContext().isLeader();
		Term current = this.term;
		Optional<String> holder = this.redlock.inspect(LeaderConfiguration.ROLE).holder();
		return new Status(this.instance, LeaderConfiguration.ROLE, leader,
				(leader && current != null) ? current.since() : null,
				(leader && current != null) ? current.fencingToken() : null, holder.orElse(null));
	}

	/**
	 * Returns whether this instance leads now.
	 * @return whether it leads
	 */
	public boolean isLeader() {
		return this.initiator.getContext().isLeader();
	}

	private record Term(Instant since, long fencingToken) {
	}

	/**
	 * What {@code GET /demo/leader} shows.
	 *
	 * @param instance this instance
	 * @param role the role
	 * @param leader whether this instance leads
	 * @param since when it became leader, if it leads
	 * @param fencingToken the leader lock's fencing token, if it leads: greater for every
	 * new leader
	 * @param heldBy the owner holding the role's lock on a quorum of nodes
	 * ({@code host:pid:thread}), seen from any instance
	 */
	public record Status(String instance, String role, boolean leader, Instant since, Long fencingToken,
			String heldBy) {
	}

}
