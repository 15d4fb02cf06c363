package io.github.redlock.docker.compose;

import java.util.List;
import java.util.Map;

import org.springframework.boot.docker.compose.core.ConnectionPorts;
import org.springframework.boot.docker.compose.core.ImageReference;
import org.springframework.boot.docker.compose.core.RunningService;

/**
 * A running Docker Compose service as {@code docker compose ps} would describe it, whose
 * port 6379 is mapped to a real node on this machine's loopback.
 */
record TestRunningService(String name, String imageName, int port,
		Map<String, String> labels) implements RunningService {

	static final String LABEL = "org.springframework.boot.service-connection";

	/**
	 * A service labelled as a node of the lock quorum.
	 */
	static TestRunningService redlock(String name, String image, int port) {
		return new TestRunningService(name, image, port, Map.of(LABEL, "redlock"));
	}

	/**
	 * A service Spring Boot connects Spring Data Redis to.
	 */
	static TestRunningService redis(String name, int port) {
		return new TestRunningService(name, "redis:7.4", port, Map.of());
	}

	@Override
	public ImageReference image() {
		return ImageReference.of(this.imageName);
	}

	@Override
	public String host() {
		return "127.0.0.1";
	}

	@Override
	public ConnectionPorts ports() {
		return new ConnectionPorts() {

			@Override
			public int get(int containerPort) {
				if (containerPort != 6379) {
					throw new IllegalStateException("No host port mapping found for container port " + containerPort);
				}
				return TestRunningService.this.port;
			}

			@Override
			public List<Integer> getAll() {
				return List.of(TestRunningService.this.port);
			}

			@Override
			public List<Integer> getAll(String protocol) {
				return getAll();
			}

		};
	}

	@Override
	public Map<String, String> env() {
		return Map.of();
	}

}
