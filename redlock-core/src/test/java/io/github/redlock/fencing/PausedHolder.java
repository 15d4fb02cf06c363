package io.github.redlock.fencing;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import io.github.redlock.Lease;
import io.github.redlock.engine.RedlockRegistry;
import io.lettuce.core.RedisClient;

/**
 * The holder of {@link PausedHolderIntegrationTests}, in a JVM of its own: it takes the
 * lock, kept extended, checks that it holds it, and then writes with its token as soon as
 * it reads a line on its standard input. The test stops the JVM (SIGSTOP) between the
 * check and the write, where a GC pause or a VM migration may stop any process.
 */
public final class PausedHolder {

	private PausedHolder() {
	}

	/**
	 * Arguments: the nodes (comma separated), the store's URI, the key, the record.
	 */
	public static void main(String[] args) throws Exception {
		RedisClient storeClient = RedisClient.create(args[1]);
		try (RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(Arrays.asList(args[0].split(",")))
			.defaultTtl(PausedHolderIntegrationTests.TTL)
			.maxTtl(PausedHolderIntegrationTests.TTL)
			.build()
			.start()) {
			FencedStore store = new FencedStore(storeClient.connect().sync());
			Lease lease = registry.acquire(args[2], PausedHolderIntegrationTests.TTL, Duration.ofSeconds(30), true);
			System.out.println("HOLDING " + lease.fencingToken() + " held=" + lease.isHeld());
			System.out.flush();
			new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
			// it believes it still holds the lock: its check passed just before
			boolean written = store.write(args[3], lease.fencingToken(), "written by the paused holder");
			System.out.println("WROTE " + written + " held=" + lease.isHeld());
			System.out.flush();
			lease.close();
		}
		finally {
			storeClient.shutdown();
		}
	}

}
