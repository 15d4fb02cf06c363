package io.github.redlock.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import io.github.redlock.embedded.RedisFleet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample as Spring's AOT processing built it ({@code spring-boot:process-aot}, bound
 * to this module's build), started as {@code java -Dspring.aot.enabled=true -jar
 * sample-app.jar} on three real redis-server nodes: its context comes from the generated
 * code (without that code the start fails), and the lock demo and the health of the
 * quorum answer as on the JVM's usual path. Runs in the build's {@code integration-test}
 * phase, after the jar is packaged: the {@code aot} execution of Surefire in this
 * module's pom runs the tests tagged {@code aot-jar}, the default execution none of them.
 */
@Tag("aot-jar")
class SampleAotIntegrationTests {

	private static final Pattern STARTED = Pattern.compile("Tomcat started on port (\\d+)");

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private static RedisFleet fleet;

	private static Process application;

	private static Path output;

	private static int port;

	@BeforeAll
	static void start() throws IOException {
		String jar = System.getProperty("sample.jar");
		assertThat(jar).as("sample.jar, set by the aot execution in sample-app/pom.xml").isNotNull();
		assertThat(Path.of(jar)).exists();
		fleet = RedisFleet.start(3);
		output = Files.createTempFile("sample-aot", ".log");
		application = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Dspring.aot.enabled=true", "-XX:TieredStopAtLevel=1", "-jar", jar, "--server.port=0",
				"--redlock.nodes=" + String.join(",", fleet.uris()),
				// the nodes have just started empty: the guard would keep them out of
				// quorums
				"--redlock.restart-guard=false")
			.redirectErrorStream(true)
			.redirectOutput(output.toFile())
			.start();
		await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).until(() -> {
			String log = log();
			assertThat(application.isAlive()).as("the sample is running; its output:%n%s", log).isTrue();
			Matcher matcher = STARTED.matcher(log);
			if (matcher.find()) {
				port = Integer.parseInt(matcher.group(1));
				return true;
			}
			return false;
		});
	}

	@AfterAll
	static void stop() throws Exception {
		if (application != null) {
			application.destroy();
			if (!application.waitFor(30, TimeUnit.SECONDS)) {
				application.destroyForcibly().waitFor();
			}
		}
		if (fleet != null) {
			fleet.close();
		}
		if (output != null) {
			Files.deleteIfExists(output);
		}
	}

	private static String log() throws IOException {
		return Files.readString(output, StandardCharsets.UTF_8);
	}

	private static HttpResponse<String> send(String method, String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofMinutes(1))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		return http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@Test
	void nativeImageMetadataOfTheJarCarriesTheStartersHints() throws Exception {
		try (ZipFile jar = new ZipFile(System.getProperty("sample.jar"))) {
			ZipEntry entry = jar
				.getEntry("META-INF/native-image/io.github.redlock/sample-app/reachability-metadata.json");
			assertThat(entry).as("the reachability metadata written by process-aot").isNotNull();
			// JSON as written there: with "\/" for "/"
			String metadata = new String(jar.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8)
				.replace("\\/", "/");
			assertThat(metadata).contains("io/github/redlock/engine/node/*.lua",
					"io.github.redlock.aop.LockExpressionRootObject", "io.github.redlock.sample.PaymentService");
		}
	}

	@Test
	void concurrentPaymentsUnderTheLockChargeAnOrderOnce() throws Exception {
		HttpResponse<String> race = send("POST", "/demo/orders/3001/race?requests=10");
		assertThat(race.statusCode()).isEqualTo(200);
		assertThat(race.body()).contains("\"locked\":true", "\"charges\":1,", "\"charged\":1,");
	}

	@Test
	void healthShowsTheQuorumOfTheGivenNodes() throws Exception {
		HttpResponse<String> health = send("GET", "/actuator/health/redlock");
		assertThat(health.statusCode()).isEqualTo(200);
		assertThat(health.body()).contains("\"status\":\"UP\"", "\"quorum\":2", "\"usable\":\"3 of 3\"");
		assertThat(List.of(log().split("\n"))).noneMatch((line) -> line.contains(" ERROR "));
	}

}
