package io.github.redlock.engine;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;

import io.github.redlock.LockAcquisitionException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class PasswordIntegrationTests {

	@Test
	void failuresAgainstUnreachableNodesNeverShowThePassword() throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			port = socket.getLocalPort(); // closed again: nothing listens there
		}
		try (RedlockRegistry registry = RedlockRegistry.builder()
			.nodes("redis://:s3cret@127.0.0.1:" + port, "redis://user:s3cret@127.0.0.1:" + (port + 1) + "/2")
			.connectTimeout(Duration.ofMillis(500))
			.build()
			.start()) {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> registry.acquire("secret", Duration.ofSeconds(5), Duration.ZERO))
				.withMessageContaining("0 of 2 nodes agreed, 2 needed")
				.withMessageContaining("redis://127.0.0.1:" + port + " refused")
				.withMessageContaining("redis://127.0.0.1:" + (port + 1) + "/2 refused")
				.withMessageNotContaining("s3cret")
				.withMessageNotContaining("user@");
		}
	}

	/**
	 * Lettuce reads a lone userinfo ({@code redis://s3cret@host}) as a password. It was
	 * displayed as a user name, so the password showed in every message, health and log
	 * line naming the node (this test failed before the fix): no display shows userinfo.
	 */
	@Test
	void aLoneUserinfoIsAPasswordAndIsNeverShown() throws IOException {
		int port = closedPort();
		try (RedlockRegistry registry = RedlockRegistry.builder()
			.nodes("redis://s3cret@127.0.0.1:" + port, "redis://s3cret@127.0.0.1:" + (port + 1))
			.connectTimeout(Duration.ofMillis(500))
			.build()
			.start()) {
			assertThat(registry.toString()).doesNotContain("s3cret").contains("redis://127.0.0.1:" + port);
			assertThat(registry.checkNodes()).extracting(NodeStatus::node)
				.containsExactly("redis://127.0.0.1:" + port, "redis://127.0.0.1:" + (port + 1));
			assertThat(registry.checkNodes().toString()).doesNotContain("s3cret");
			assertThat(registry.inspect("k").toString()).doesNotContain("s3cret");
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> registry.acquire("k", Duration.ofSeconds(5), Duration.ZERO))
				.withMessageNotContaining("s3cret");
		}
	}

	/**
	 * The old redaction stopped at the first {@code /} and needed a scheme, so these
	 * messages showed the password (this test failed before the fix).
	 */
	@Test
	void malformedUrisAreShownMasked() {
		assertThat(invalid("redis://:pa/ss@host:6379")).doesNotContain("pa/ss").doesNotContain("ss@");
		assertThat(invalid("redis://user:p@ss@host:notaport")).doesNotContain("p@ss").doesNotContain("ss@host");
		assertThat(invalid("user:s3cret@host:6379")).doesNotContain("s3cret").contains("not a redis://");
		assertThat(invalid("redis://:s3cret@host:6379?verifyPeer=bogus")).doesNotContain("s3cret");
		assertThat(invalid("redis://:s3cret@host:6379?verifyPeer=bogus")).doesNotContain("s3cret");
		assertThat(invalid("redis://:s3cret@host:6379/notadb")).doesNotContain("s3cret");
		assertThat(invalid("redis://:s3cret@")).doesNotContain("s3cret");
		// the listed-twice message shows the node, without any credentials
		assertThatExceptionOfType(InvalidOptionException.class)
			.isThrownBy(() -> RedlockRegistry.builder()
				.nodes("redis://s3cret@127.0.0.1:1", "redis://other:s3cret@127.0.0.1:1")
				.build())
			.withMessageContaining("redis://127.0.0.1:1")
			.withMessageNotContaining("s3cret")
			.withMessageNotContaining("other");
	}

	private static String invalid(String uri) {
		try {
			RedlockRegistry.builder().nodes(uri, "redis://127.0.0.1:1", "redis://127.0.0.1:2").build();
		}
		catch (InvalidOptionException ex) {
			return ex.getMessage();
		}
		throw new AssertionError(uri + " was accepted");
	}

	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort(); // closed again: nothing listens there
		}
	}

}
