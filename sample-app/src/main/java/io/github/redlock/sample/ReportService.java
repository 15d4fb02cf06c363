package io.github.redlock.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;

import org.springframework.stereotype.Service;

/**
 * Writes reports under a lock taken from the injected {@link LockRegistry} with
 * try-with-resources, passing the fencing token to the store.
 */
@Service
public class ReportService {

	private final LockRegistry locks;

	private final FencedStore store;

	public ReportService(LockRegistry locks, FencedStore store) {
		this.locks = locks;
		this.store = store;
	}

	/**
	 * Writes a report under its lock.
	 */
	public boolean write(String name, String content) throws InterruptedException {
		try (Lease lease = this.locks.acquire("report:" + name, Duration.ofSeconds(10), Duration.ofSeconds(3))) {
			return this.store.write(name, content, lease.fencingToken());
		}
	}

	/**
	 * Tells the stale-writer story: writer A takes the lock with a 1s TTL and is paused
	 * for 1.5s (a long GC, a frozen VM); its lease expires, writer B takes the lock and
	 * writes; then A wakes up and writes, believing it still holds the lock. The store
	 * rejects A by its older token.
	 */
	public List<String> staleWriter(String name) throws Exception {
		List<String> story = new ArrayList<>();
		Lease a = this.locks.acquire("report:" + name, Duration.ofSeconds(1), Duration.ofSeconds(3));
		story.add("A holds the lock with token " + a.fencingToken() + ", then pauses for 1.5s");
		Thread.sleep(1500);
		story.add("A's lease expired while it was paused: isHeld() = " + a.isHeld());
		CompletableFuture.runAsync(() -> {
			try (Lease b = this.locks.acquire("report:" + name, Duration.ofSeconds(10), Duration.ofSeconds(3))) {
				boolean accepted = this.store.write(name, "written by B", b.fencingToken());
				story.add("B took the lock with token " + b.fencingToken() + " and wrote: "
						+ (accepted ? "accepted" : "rejected"));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}).get();
		boolean accepted = this.store.write(name, "written by A", a.fencingToken());
		story.add("A woke up and wrote with token " + a.fencingToken() + ": "
				+ (accepted ? "ACCEPTED (data corrupted!)" : "rejected, so B's data is safe"));
		a.close();
		story.add("The store holds: " + this.store.read(name));
		return story;
	}

}
