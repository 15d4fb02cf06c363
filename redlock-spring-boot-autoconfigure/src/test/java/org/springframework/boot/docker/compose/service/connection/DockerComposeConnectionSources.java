package org.springframework.boot.docker.compose.service.connection;

import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.core.env.Environment;

/**
 * Makes the {@link DockerComposeConnectionSource} that Spring Boot's listener gives the
 * factories for a running service (its constructor is package-private, and Spring Boot's
 * own tests make it from this package too).
 */
public final class DockerComposeConnectionSources {

	private DockerComposeConnectionSources() {
	}

	public static DockerComposeConnectionSource of(RunningService service, Environment environment) {
		return new DockerComposeConnectionSource(service, environment);
	}

}
