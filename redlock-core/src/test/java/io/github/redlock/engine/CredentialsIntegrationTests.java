package io.github.redlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.logging.Level;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.NodeFailure;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * Credentials given once for every node ({@code username}, {@code password}) rather than
 * in each URI, so that they can come from a secret store (issue 13, item 4), and a wrong
 * password that fails fast and says so.
 */
class CredentialsIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final LogCapture log = LogCapture.of(Level.ALL, "io.github.redlock");

	// Lettuce's TRACE writes every byte sent, HELLO's password included (the README says
	// so): up to DEBUG, it must not show one
	private final LogCapture lettuceLog = LogCapture.of(Level.FINE, "io.lettuce", "io.netty");

	private RedlockRegistry registry;

	@BeforeEach
	void users() {
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("ACL", "SETUSER", "locker", "reset", "on", ">pw-locker-1", "~*", "+@all");
			node.call("ACL", "SETUSER", "other", "reset", "on", ">pw-other-2", "~*", "+@all");
		}
	}

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close();
		}
		this.log.close();
		this.lettuceLog.close();
	}

	@Test
	void theCredentialsApplyToEveryNodeWhoseUriHasNone() throws Exception {
		List<String> uris = fleet.uris();
		this.registry = RedlockRegistry.builder()
			.nodes(uris.get(0), uris.get(1), uris.get(2).replace("redis://", "redis://other:pw-other-2@"))
			.username("locker")
			.password("pw-locker-1")
			.restartGuard(false)
			.build()
			.start();
		try (Lease lease = this.registry.acquire("cred", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
			assertThat(lease.isHeld()).isTrue();
		}
		assertThat(users(fleet.node(0))).contains("locker").doesNotContain("other");
		assertThat(users(fleet.node(1))).contains("locker").doesNotContain("other");
		// a URI's own credentials win
		assertThat(users(fleet.node(2))).contains("other").doesNotContain("locker");
		assertThat(this.log.lines()).noneMatch((line) -> line.contains("pw-locker-1") || line.contains("pw-other-2"));
		assertThat(this.lettuceLog.lines()).isNotEmpty()
			.noneMatch((line) -> line.contains("pw-locker-1") || line.contains("pw-other-2"));
	}

	@Test
	void aWrongPasswordFailsFastAndSaysSoWithoutShowingIt() {
		this.registry = TestRegistries.builder(fleet).username("locker").password("wrong-pw-9").build().start();
		long start = System.nanoTime();
		LockAcquisitionException failure = catchThrowableOfType(LockAcquisitionException.class,
				() -> this.registry.acquire("cred", Duration.ofSeconds(5), Duration.ofSeconds(30)));
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(failure.getReason()).isEqualTo(LockAcquisitionException.Reason.NO_QUORUM);
		assertThat(failure.getFailures()).allSatisfy((node) -> {
			assertThat(node.kind()).isEqualTo(NodeFailure.Kind.AUTH);
			assertThat(node.detail()).startsWith("WRONGPASS").contains("Check the node's user name and password");
		});
		assertThat(failure).hasMessageContaining("not usable: authentication failed (WRONGPASS")
			.hasMessageNotContaining("wrong-pw-9");
		// a wrong password does not fix itself: no waiting out the 30 s wait time
		assertThat(took).isLessThan(Duration.ofSeconds(15));
		assertThat(this.registry.checkNodes()).allSatisfy(
				(status) -> assertThat(status.problem()).startsWith("not usable: authentication failed (WRONGPASS"));
		assertThat(this.log.lines()).noneMatch((line) -> line.contains("wrong-pw-9"));
		assertThat(this.lettuceLog.lines()).noneMatch((line) -> line.contains("wrong-pw-9"));
	}

	@Test
	void aNodeThatNeedsAPasswordAndGetsNoneSaysSo() {
		fleet.node(0).call("ACL", "SETUSER", "default", "resetpass", ">pw-default-3");
		try {
			this.registry = TestRegistries.builder(fleet).build().start();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(this.registry.checkNodes().get(0).problem())
					.startsWith("not usable: authentication failed (NOAUTH")
					.contains("The node needs a password"));
		}
		finally {
			// the kit's own connections send no password: a restart forgets it
			fleet.node(0).kill();
			fleet.node(0).start();
		}
	}

	@Test
	void aUserNameWithoutAPasswordIsRefused() {
		assertThatExceptionOfType(InvalidOptionException.class)
			.isThrownBy(() -> RedlockRegistry.builder().nodes(fleet.uris()).username("locker").build())
			.withMessageContaining("username is set without a password");
	}

	private static String users(RedisNode node) {
		StringBuilder users = new StringBuilder();
		for (String client : ((String) node.call("CLIENT", "LIST")).split("\n")) {
			if (!client.contains("cmd=client|list")) {
				users.append(client.replaceAll(".* user=(\\S+).*", "$1")).append(' ');
			}
		}
		return users.toString();
	}

}
