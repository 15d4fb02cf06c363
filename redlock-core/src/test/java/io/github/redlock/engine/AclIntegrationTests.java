package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockSemaphore;
import io.github.redlock.NodeFailure;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.node.NodeTrust;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * ACL users that lack a permission locking needs, and users that lack only what it does
 * not need (issue 12, item 4). Before the change a user without {@code INFO} or
 * {@code TIME} saw every lock fail with "recently restarted ... counts again once the
 * maximum TTL has passed", logged only at DEBUG; health, a {@code PING}, said UP for a
 * user refused every lock and DOWN for a user without {@code PING} whose locks worked.
 */
class AclIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final LogCapture log = LogCapture.of(Level.INFO, NodeTrust.class);

	private RedlockRegistry registry;

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close();
		}
		this.log.close();
	}

	@Test
	void theCommonAllButDangerousRecipeLacksInfoAndEveryPlaceSaysSo() {
		RedlockRegistry registry = registryAs("nodanger", "~*", "+@all", "-@dangerous");
		LockAcquisitionException failure = catchThrowableOfType(LockAcquisitionException.class,
				() -> registry.acquire("acl", Duration.ofSeconds(1), Duration.ofSeconds(5)));
		assertThat(failure.getReason()).isEqualTo(LockAcquisitionException.Reason.NO_QUORUM);
		assertThat(failure.getFailures()).hasSize(3).allSatisfy((node) -> {
			assertThat(node.kind()).isEqualTo(NodeFailure.Kind.NOPERM);
			assertThat(node.detail()).contains("INFO").contains("add +info");
		});
		assertThat(failure).hasMessageContaining("not usable: NOPERM (on INFO");
		assertThat(registry.checkNodes()).allSatisfy((status) -> {
			assertThat(status.usable()).isFalse();
			assertThat(status.problem()).startsWith("not usable: NOPERM (on INFO");
		});
		for (RedisNode node : fleet.fleet().nodes()) {
			assertThat(this.log.lines())
				.filteredOn((line) -> line.startsWith("WARNING") && line.contains("127.0.0.1:" + node.port())
						&& line.contains("not usable: NOPERM on INFO"))
				.hasSize(1);
		}
	}

	@Test
	void aUserWithoutTimeIsToldThatTimeIsMissingNotTheScriptsSha() {
		RedlockRegistry registry = registryAs("notime", "~*", "+@all", "-time");
		LockAcquisitionException failure = catchThrowableOfType(LockAcquisitionException.class,
				() -> registry.acquire("acl", Duration.ofSeconds(1), Duration.ofSeconds(5)));
		assertThat(failure).hasMessageContaining("NOPERM (on TIME").hasMessageContaining("add +time");
	}

	@Test
	void aUserWithoutIncrIsCaughtWhenItConnectsNotOnlyWhenItLocks() {
		RedlockRegistry registry = registryAs("noincr", "~*", "+@all", "-incr");
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(registry.checkNodes())
				.allSatisfy((status) -> assertThat(status.problem()).contains("NOPERM (on INCR")));
	}

	@Test
	void aUserWithoutPingButWithEverythingLockingNeedsLocksAndIsHealthy() throws Exception {
		RedlockRegistry registry = registryAs("noping", "~*", "+@all", "-ping");
		awaitUsable(registry);
		try (Lease lease = registry.acquire("acl", Duration.ofSeconds(1), Duration.ofSeconds(5))) {
			assertThat(lease.isHeld()).isTrue();
		}
	}

	@Test
	void theLeastPrivilegeTheReadmeListsIsEnough() throws Exception {
		RedlockRegistry registry = registryAs("least", "~redlock:*", "+eval", "+evalsha", "+get", "+set", "+incr",
				"+pexpire", "+pttl", "+del", "+time", "+info");
		awaitUsable(registry);
		try (Lease lease = registry.acquire("acl", Duration.ofSeconds(1), Duration.ofSeconds(5))) {
			assertThat(lease.isHeld()).isTrue();
			assertThat(lease.extend(Duration.ofSeconds(1))).isTrue();
		}
		assertThat(registry.inspect("acl").nodes()).allSatisfy((node) -> assertThat(node.error()).isNull());
	}

	/**
	 * A node that fell silent rejoins when it answers again, for the least-privilege user
	 * the README lists, which may not run {@code PING}. Failed before the fix: the probe
	 * was a {@code PING}, refused with NOPERM, and a refusal was taken for no answer, so
	 * the resumed node was still out when the wait ended.
	 */
	@Test
	void aNodeThatFellSilentRejoinsForTheReadmesLeastPrivilegeUser() throws Exception {
		RedlockRegistry registry = registryAs("leastsilent", "~redlock:*", "resetchannels", "&redlock:lock:*", "+eval",
				"+evalsha", "+get", "+set", "+incr", "+pexpire", "+pttl", "+del", "+time", "+info", "+publish",
				"+subscribe", "+unsubscribe");
		awaitUsable(registry);
		RedisNode frozen = fleet.fleet().nodes().get(2);
		frozen.pause();
		try {
			for (int i = 0; i < 100 && registry.usableNodes() == 3; i++) {
				try (Lease lease = registry.acquire("acl-silent-" + i, Duration.ofSeconds(1), Duration.ofSeconds(5))) {
					assertThat(lease.isHeld()).isTrue();
				}
			}
			await().atMost(Duration.ofSeconds(15)).until(() -> registry.usableNodes() == 2);
		}
		finally {
			frozen.resume();
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> registry.usableNodes() == 3);
		assertThat(registry.checkNodes()).allSatisfy((status) -> assertThat(status.usable()).isTrue());
	}

	/**
	 * Read-write locks and semaphores need more than the mutex: their scripts keep
	 * readers, writers and permits in sorted sets and a hash. This is the rule
	 * docs/production.md lists for them.
	 */
	@Test
	void theLeastPrivilegeForReadWriteLocksAndSemaphoresIsEnough() throws Exception {
		RedlockRegistry registry = registryAs("leastrw", "~redlock:*", "+eval", "+evalsha", "+get", "+set", "+incr",
				"+pexpire", "+pttl", "+del", "+time", "+info", "+exists", "+hget", "+hset", "+hdel", "+zadd", "+zcard",
				"+zrange", "+zrangebyscore", "+zrem", "+zremrangebyscore", "+zscore");
		awaitUsable(registry);
		try (Lease read = registry.acquireRead("acl-rw", Duration.ofSeconds(1), Duration.ofSeconds(5))) {
			assertThat(read.extend(Duration.ofSeconds(1))).isTrue();
		}
		try (Lease write = registry.acquireWrite("acl-rw", Duration.ofSeconds(1), Duration.ofSeconds(5))) {
			assertThat(write.extend(Duration.ofSeconds(1))).isTrue();
		}
		LockSemaphore semaphore = registry.semaphore("acl-permits", 2);
		try (Lease permit = semaphore.acquire(Duration.ofSeconds(1), Duration.ofSeconds(5))) {
			assertThat(permit.extend(Duration.ofSeconds(1))).isTrue();
			assertThat(semaphore.availablePermits()).isEqualTo(1);
		}
	}

	/**
	 * A user given only the exclusive lock's least privilege locks, and is told which
	 * rules a read lock or a permit needs when it asks for one. Before, the refusal took
	 * every node out of the exclusive lock's quorums too, "checking which" command it
	 * was, and the probe (of the exclusive lock's commands) never found it: the next
	 * exclusive lock failed with "not usable: NOPERM (the release-permit script uses a
	 * command or key the ACL user may not (checking which: ...".
	 */
	@Test
	void aUserWithOnlyTheMutexsPrivilegeIsToldWhatReadWriteLocksAndSemaphoresNeed() throws Exception {
		RedlockRegistry registry = registryAs("leastmutex", "~redlock:*", "+eval", "+evalsha", "+get", "+set", "+incr",
				"+pexpire", "+pttl", "+del", "+time", "+info");
		awaitUsable(registry);
		try (Lease lease = registry.acquire("acl-mutex", Duration.ofSeconds(1), Duration.ofSeconds(5))) {
			assertThat(lease.isHeld()).isTrue();
		}
		LockAcquisitionException read = catchThrowableOfType(LockAcquisitionException.class,
				() -> registry.acquireRead("acl-rw", Duration.ofSeconds(1), Duration.ofSeconds(2)));
		assertThat(read).hasMessageContaining("the acquire-read script uses a command or key the ACL user may not")
			.hasMessageContaining("+zadd");
		assertThat(read.getFailures()).hasSize(3)
			.allSatisfy((node) -> assertThat(node.kind()).isEqualTo(NodeFailure.Kind.NOPERM));
		LockAcquisitionException permit = catchThrowableOfType(LockAcquisitionException.class,
				() -> registry.semaphore("acl-permits", 2).acquire(Duration.ofSeconds(1), Duration.ofSeconds(2)));
		assertThat(permit).hasMessageContaining("the acquire-permit script").hasMessageContaining("+hset");
		assertThat(registry.checkNodes()).allSatisfy((status) -> assertThat(status.usable()).isTrue());
		// the mutex still works after the refusals
		try (Lease lease = registry.acquire("acl-mutex", Duration.ofSeconds(1), Duration.ofSeconds(5))) {
			assertThat(lease.isHeld()).isTrue();
		}
	}

	private RedlockRegistry registryAs(String user, String... rules) {
		List<String> uris = new ArrayList<>();
		for (RedisNode node : fleet.fleet().nodes()) {
			List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", user, "reset", "on", ">secret-" + user));
			command.addAll(List.of(rules));
			node.call(command.toArray(String[]::new));
			uris.add("redis://" + user + ":secret-" + user + "@127.0.0.1:" + node.port());
		}
		this.registry = RedlockRegistry.builder()
			.nodes(uris)
			.restartGuard(true)
			.defaultTtl(Duration.ofSeconds(1))
			.maxTtl(Duration.ofSeconds(1))
			.build()
			.start();
		return this.registry;
	}

	private static void awaitUsable(RedlockRegistry registry) {
		await().atMost(Duration.ofSeconds(15))
			.untilAsserted(() -> assertThat(registry.checkNodes())
				.allSatisfy((status) -> assertThat(status.usable()).as(String.valueOf(status.problem())).isTrue()));
	}

}
