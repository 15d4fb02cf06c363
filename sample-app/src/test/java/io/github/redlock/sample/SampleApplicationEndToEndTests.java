package io.github.redlock.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.LockRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Boots the sample on its embedded nodes (no redlock.nodes is configured) and drives it
 * over HTTP, concurrently, as a person with curl would.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleApplicationEndToEndTests {

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@Value("${local.server.port}")
	private int port;

	@Autowired
	private LockRegistry locks;

	private HttpResponse<String> post(String path) {
		return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()));
	}

	private HttpResponse<String> get(String path) {
		return send(HttpRequest.newBuilder(uri(path)).GET());
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

	private HttpResponse<String> send(HttpRequest.Builder request) {
		try {
			return this.http.send(request.timeout(Duration.ofMinutes(1)).build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static int intField(String json, String name) {
		Matcher matcher = Pattern.compile("\"" + name + "\":(\\d+)").matcher(json);
		assertThat(matcher.find()).as("%s in %s", name, json).isTrue();
		return Integer.parseInt(matcher.group(1));
	}

	@Test
	void healthIsUpAndShowsTheLockQuorum() {
		HttpResponse<String> health = get("/actuator/health");
		assertThat(health.statusCode()).isEqualTo(200);
		assertThat(health.body()).contains("\"status\":\"UP\"");
		HttpResponse<String> redlock = get("/actuator/health/redlock");
		assertThat(redlock.statusCode()).isEqualTo(200);
		assertThat(redlock.body()).contains("\"status\":\"UP\"", "\"quorum\":3", "\"usable\":\"5 of 5\"");
	}

	@Test
	void lockMetricsArePublished() {
		post("/orders/1002/pay");
		// timed once, by the redlock.acquisition observation (issue 25, item 10)
		HttpResponse<String> acquire = get("/actuator/metrics/redlock.acquisition?tag=redlock.outcome:acquired");
		assertThat(acquire.statusCode()).isEqualTo(200);
		assertThat(acquire.body()).contains("\"statistic\":\"COUNT\"");
		assertThat(get("/actuator/metrics/redlock.leases.active").statusCode()).isEqualTo(200);
	}

	@Test
	void theRedlockEndpointGaugesAndObservationsShowTheFleetAndTheLocks() {
		HttpResponse<String> nodes = get("/actuator/redlock");
		assertThat(nodes.statusCode()).isEqualTo(200);
		assertThat(nodes.body()).contains("\"canLock\":true", "\"quorum\":3", "\"usable\":5",
				"\"toleratedFailures\":2");
		HttpResponse<String> lock = get("/actuator/redlock/order:1003");
		assertThat(lock.statusCode()).isEqualTo(200);
		assertThat(lock.body()).contains("\"key\":\"order:1003\"", "\"heldAnywhere\":false");
		assertThat(get("/actuator/metrics/redlock.nodes.tolerated.failures").body()).contains("\"value\":2.0");
		post("/orders/1003/pay");
		HttpResponse<String> observed = get("/actuator/metrics/redlock.acquisition?tag=redlock.outcome:acquired");
		assertThat(observed.statusCode()).as("the acquisition observation's timer").isEqualTo(200);
	}

	@Test
	void concurrentPaymentsOverHttpChargeAnOrderOnce() {
		List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			calls.add(CompletableFuture.supplyAsync(() -> post("/orders/1001/pay")));
		}
		List<HttpResponse<String>> responses = calls.stream().map(CompletableFuture::join).toList();
		assertThat(responses).allSatisfy((response) -> assertThat(response.statusCode()).isIn(200, 409));
		assertThat(responses).filteredOn((response) -> response.body().contains("\"CHARGED\"")).hasSize(1);
		assertThat(responses).filteredOn((response) -> response.statusCode() == 409)
			.allSatisfy((response) -> assertThat(response.headers().firstValue("Retry-After")).hasValue("1"));
		assertThat(get("/orders/1001/charges").body()).matches("\\[\"[^\"]+\"\\]");
	}

	@Test
	void raceDemonstrationShowsOneChargeWithTheLockAndManyWithout() {
		String locked = post("/demo/orders/2001/race?requests=10").body();
		assertThat(intField(locked, "charges")).isEqualTo(1);
		assertThat(intField(locked, "charged")).isEqualTo(1);
		String unlocked = post("/demo/orders/2002/race?requests=10&locked=false").body();
		assertThat(intField(unlocked, "charges")).isGreaterThan(1);
	}

	@Test
	void aPriceIsChangedUnderTheWriteLockAndReadUnderReadLocks() {
		HttpResponse<String> changed = send(HttpRequest.newBuilder(uri("/catalog/sku-7/price?cents=1299"))
			.PUT(HttpRequest.BodyPublishers.noBody()));
		assertThat(changed.statusCode()).isEqualTo(200);
		List<CompletableFuture<HttpResponse<String>>> reads = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			reads.add(CompletableFuture.supplyAsync(() -> get("/catalog/sku-7/price")));
		}
		for (CompletableFuture<HttpResponse<String>> read : reads) {
			assertThat(read.join().statusCode()).isEqualTo(200);
			assertThat(intField(read.join().body(), "cents")).isEqualTo(1299);
		}
		assertThat(this.locks.inspect("price:sku-7").holder()).isEmpty();
	}

	@Test
	void exportsRunAtMostTwoAtOnce() {
		HttpResponse<String> exports = post("/demo/exports?count=6&millis=300");
		assertThat(exports.statusCode()).isEqualTo(200);
		assertThat(intField(exports.body(), "exports")).isEqualTo(6);
		assertThat(intField(exports.body(), "mostAtOnce")).isBetween(1, 2);
	}

	@Test
	void staleWriterIsRejectedByItsFencingToken() {
		String story = post("/demo/reports/q3/stale-writer").body();
		assertThat(story).contains("isHeld() = false", "rejected, so B's data is safe",
				"The store holds: written by B");
	}

	@Test
	void longJobKeepsItsShortLeaseAndASecondRunIsRefused() {
		CompletableFuture<HttpResponse<String>> job = CompletableFuture
			.supplyAsync(() -> post("/jobs/reindex?seconds=6"));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.locks.inspect("reindex").holder().isPresent());
		HttpResponse<String> second = post("/jobs/reindex?seconds=1");
		assertThat(second.statusCode()).isEqualTo(409);
		HttpResponse<String> first = job.join();
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).contains("\"heldThroughout\":true", "\"ranMillis\":6000");
	}

}
