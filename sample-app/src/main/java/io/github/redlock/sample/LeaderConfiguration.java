package io.github.redlock.sample;

import io.github.redlock.integration.RedlockLockRegistry;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Leader election across the instances with Spring Integration's own initiator, over the
 * auto-configured {@link RedlockLockRegistry}: one instance at a time holds the
 * {@value #ROLE} lock on the quorum and leads; its heartbeat refreshes the lease, and an
 * instance that stops hands over at once. {@link Leadership} hears the events.
 */
@Configuration(proxyBeanMethods = false)
public class LeaderConfiguration {

	/** The role, which is also the lock's key. */
	public static final String ROLE = "sample-leader";

	@Bean
	LockRegistryLeaderInitiator leaderInitiator(RedlockLockRegistry locks, SampleProperties properties) {
		return new LockRegistryLeaderInitiator(locks, new DefaultCandidate(properties.getInstance(), ROLE));
	}

}
