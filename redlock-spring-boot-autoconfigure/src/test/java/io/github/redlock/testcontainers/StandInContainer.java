package io.github.redlock.testcontainers;

import java.util.function.IntSupplier;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A container that is never started: there is no Docker engine here. It answers what a
 * started Redis container answers Spring Boot (its image, host and the port mapped to
 * 6379), with the port of a real node on this machine's loopback.
 */
class StandInContainer extends GenericContainer<StandInContainer> {

	private final String image;

	private final IntSupplier port;

	private volatile boolean running;

	StandInContainer(String image, IntSupplier port) {
		super(DockerImageName.parse(image));
		this.image = image;
		this.port = port;
	}

	@Override
	public String getDockerImageName() {
		return this.image;
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public String getHost() {
		return "127.0.0.1";
	}

	@Override
	public Integer getMappedPort(int originalPort) {
		if (originalPort != 6379) {
			throw new IllegalArgumentException("Requested port (" + originalPort + ") is not mapped");
		}
		return this.port.getAsInt();
	}

}
