package io.github.redlock.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The catalog endpoints: read and change a price (read and write locks), and a demo of
 * the exports semaphore.
 */
@RestController
public class CatalogController {

	private final CatalogService catalog;

	public CatalogController(CatalogService catalog) {
		this.catalog = catalog;
	}

	@GetMapping("/catalog/{sku}/price")
	public Map<String, Object> price(@PathVariable String sku) {
		return Map.of("sku", sku, "cents", this.catalog.price(sku));
	}

	@PutMapping("/catalog/{sku}/price")
	public Map<String, Object> reprice(@PathVariable String sku, @RequestParam long cents) {
		return Map.of("sku", sku, "cents", this.catalog.reprice(sku, cents));
	}

	/**
	 * Starts {@code count} exports at once, each {@code millis} long, and reports how
	 * many ran at the same time: never more than the semaphore's two permits.
	 */
	@PostMapping("/demo/exports")
	public Map<String, Object> exports(@RequestParam(defaultValue = "6") int count,
			@RequestParam(defaultValue = "300") long millis) {
		if (count < 1 || count > 50) {
			throw new IllegalArgumentException("count must be 1 to 50, was " + count);
		}
		this.catalog.mostExportingAtOnce();
		ExecutorService threads = Executors.newFixedThreadPool(count);
		try {
			List<CompletableFuture<Void>> exports = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				exports.add(CompletableFuture.runAsync(() -> {
					try {
						this.catalog.export(millis);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}, threads));
			}
			CompletableFuture.allOf(exports.toArray(CompletableFuture[]::new)).join();
		}
		finally {
			threads.shutdown();
		}
		return Map.of("exports", count, "permits", 2, "mostAtOnce", this.catalog.mostExportingAtOnce());
	}

}
