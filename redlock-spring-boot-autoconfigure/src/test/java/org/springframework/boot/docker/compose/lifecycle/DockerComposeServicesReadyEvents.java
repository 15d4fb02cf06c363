package org.springframework.boot.docker.compose.lifecycle;

import java.util.List;

import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.context.ApplicationContext;

/**
 * Makes the event Spring Boot's Docker Compose support publishes once the services run
 * (its constructor is package-private), so that a test can hand Spring Boot's own
 * listeners services without a Docker engine.
 */
public final class DockerComposeServicesReadyEvents {

	private DockerComposeServicesReadyEvents() {
	}

	public static DockerComposeServicesReadyEvent of(ApplicationContext context, List<RunningService> services) {
		return new DockerComposeServicesReadyEvent(context, services);
	}

}
