package io.github.redlock.engine;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;

import io.github.redlock.LockAcquisitionException;
import org.junit.jupiter.api.Test;

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
				.withMessageContaining("redis://user@127.0.0.1:" + (port + 1) + "/2 refused")
				.withMessageNotContaining("s3cret");
		}
	}

}
