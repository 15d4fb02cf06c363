package org.springframework.boot.testcontainers.service.connection;

import java.util.Map;

import org.testcontainers.containers.Container;

import org.springframework.boot.origin.Origin;
import org.springframework.core.annotation.MergedAnnotation;

/**
 * Makes the {@link ContainerConnectionSource} that Spring Boot gives the factories for a
 * {@code @ServiceConnection} container (its constructor is package-private, and Spring
 * Boot's own tests make it from this package too).
 */
public final class ContainerConnectionSources {

	private ContainerConnectionSources() {
	}

	public static <C extends Container<?>> ContainerConnectionSource<C> of(Origin origin, Class<C> type, C container,
			String name) {
		MergedAnnotation<ServiceConnection> annotation = MergedAnnotation.of(ServiceConnection.class,
				Map.of("name", name, "type", new Class<?>[0]));
		return new ContainerConnectionSource<>("test", origin, type, container.getDockerImageName(), annotation,
				() -> container, null, null);
	}

}
