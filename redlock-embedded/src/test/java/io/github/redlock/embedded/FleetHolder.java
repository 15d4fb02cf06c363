package io.github.redlock.embedded;

/**
 * Started in a separate JVM by {@link RedisFleetIntegrationTests} and
 * {@link NodeDirectoriesIntegrationTests}: runs a fleet, prints its ports, pids and
 * directories, and waits to be killed.
 */
public final class FleetHolder {

	private FleetHolder() {
	}

	public static void main(String[] args) throws InterruptedException {
		RedisFleet fleet = RedisFleet.start(Integer.parseInt(args[0]));
		StringBuilder line = new StringBuilder("fleet");
		for (RedisNode node : fleet.nodes()) {
			line.append(' ').append(node.port()).append(':').append(node.pid()).append(':').append(node.directory());
		}
		System.out.println(line);
		System.out.flush();
		Thread.sleep(120_000);
	}

}
