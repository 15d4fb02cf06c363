package io.github.redlock.sample;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.annotation.LockMode;

import org.springframework.stereotype.Service;

/**
 * Prices read under a read lock and changed under the write lock of the same key, and
 * exports limited to two at a time across every instance by a semaphore.
 */
@Service
public class CatalogService {

	private final Map<String, Long> prices = new ConcurrentHashMap<>();

	private final AtomicInteger exporting = new AtomicInteger();

	private final AtomicInteger mostExporting = new AtomicInteger();

	/**
	 * Reads a price: any number of readers at once, none while it is being changed.
	 */
	@DistributedLock(key = "'price:' + #sku", mode = LockMode.READ, ttl = "5s", waitTime = "3s")
	public long price(String sku) {
		return this.prices.getOrDefault(sku, 0L);
	}

	/**
	 * Changes a price: one writer, and no reader meanwhile.
	 */
	@DistributedLock(key = "'price:' + #sku", mode = LockMode.WRITE, ttl = "5s", waitTime = "3s")
	public long reprice(String sku, long cents) {
		this.prices.put(sku, cents);
		return cents;
	}

	/**
	 * Runs one export: at most two at once, whichever instances they run on.
	 */
	@DistributedLock(key = "'exports'", permits = 2, ttl = "10s", waitTime = "30s")
	public void export(long millis) throws InterruptedException {
		int now = this.exporting.incrementAndGet();
		this.mostExporting.accumulateAndGet(now, Math::max);
		try {
			Thread.sleep(millis);
		}
		finally {
			this.exporting.decrementAndGet();
		}
	}

	/**
	 * Returns the most exports this instance saw running at once, and starts counting
	 * again.
	 */
	public int mostExportingAtOnce() {
		return this.mostExporting.getAndSet(0);
	}

}
