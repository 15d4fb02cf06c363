package io.github.redlock.autoconfigure.web;

import java.time.Duration;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.autoconfigure.FleetProperties;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.web.LockExceptionHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.WebApplicationContext;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * A refused lock in a web application, on real nodes (issue 26, item 6): 409 with
 * {@code Retry-After} when another owner holds it, 503 when too few nodes are usable, a
 * problem detail naming the key and the reason, and no ERROR or stack trace in the log.
 * Before {@link LockExceptionHandler}, MockMvc rethrew the exception (a 500 with an ERROR
 * and a stack trace from the servlet container).
 */
@ExtendWith(OutputCaptureExtension.class)
class LockExceptionHandlerIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private RedlockRegistry elsewhere;

	private final WebApplicationContextRunner mvc = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockWebAutoConfiguration.class))
		.withUserConfiguration(MvcApplication.class)
		.withPropertyValues(FleetProperties.of(fleet));

	private final ReactiveWebApplicationContextRunner webflux = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockWebAutoConfiguration.class))
		.withUserConfiguration(WebFluxApplication.class)
		.withPropertyValues(FleetProperties.of(fleet));

	@AfterEach
	void close() {
		if (this.elsewhere != null) {
			this.elsewhere.close();
		}
	}

	@Test
	void aLockHeldElsewhereIsAConflictWithAProblemDetail(CapturedOutput output) throws Exception {
		Lease held = holdElsewhere("order:41");
		this.mvc.run((context) -> {
			mockMvc(context).perform(get("/orders/41/pay"))
				.andExpect(status().isConflict())
				.andExpect(header().string(HttpHeaders.RETRY_AFTER, "1"))
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(jsonPath("$.status").value(409))
				.andExpect(jsonPath("$.key").value("order:41"))
				.andExpect(jsonPath("$.reason").value("HELD"))
				.andExpect(jsonPath("$.detail").value("Lock 'order:41' is held elsewhere; retry later."));
		});
		held.release();
		assertThat(output).doesNotContain("ERROR").doesNotContain("\tat ");
	}

	@Test
	void noQuorumIsServiceUnavailableWithAProblemDetail(CapturedOutput output) {
		this.mvc.run((context) -> {
			fleet.node(0).kill();
			fleet.node(1).kill();
			mockMvc(context).perform(get("/orders/42/pay"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(header().doesNotExist(HttpHeaders.RETRY_AFTER))
				.andExpect(jsonPath("$.status").value(503))
				.andExpect(jsonPath("$.key").value("order:42"))
				.andExpect(jsonPath("$.reason").value("NO_QUORUM"));
		});
		assertThat(output).doesNotContain("ERROR").doesNotContain("\tat ");
	}

	/**
	 * The first calls on brand-new nodes (issue 41, item 1): the restart guard keeps them
	 * out, so the 503 says so and when locking is possible again, and carries
	 * {@code Retry-After}. Before, it had no {@code Retry-After} ("Response header
	 * 'Retry-After' expected: not null") and the detail said only "not enough usable
	 * nodes".
	 */
	@Test
	void newNodesBehindTheRestartGuardAnswerWithRetryAfter() {
		fleet.fleet().flushAll();
		this.mvc.withPropertyValues("redlock.restart-guard=true", "redlock.max-ttl=60s").run((context) -> {
			String retryAfter = mockMvc(context).perform(get("/orders/46/pay"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(header().exists(HttpHeaders.RETRY_AFTER))
				.andExpect(jsonPath("$.reason").value("NO_QUORUM"))
				.andExpect(jsonPath("$.detail").value(containsString("the nodes are new or restarted")))
				.andExpect(jsonPath("$.detail").value(containsString("locking is possible again in about")))
				.andReturn()
				.getResponse()
				.getHeader(HttpHeaders.RETRY_AFTER);
			assertThat(Long.parseLong(retryAfter)).isBetween(1L, 70L);
		});
	}

	/**
	 * A lock this thread's own hold refuses (here a read lock asked to become a write
	 * lock) is a defect of the application: retrying cannot help, so it is a 500 with the
	 * reason, logged as an error. It was a 409 "held elsewhere" with Retry-After before
	 * the refusal had a reason of its own: "Status expected:<500> but was:<409>".
	 */
	@Test
	void aLockRefusedByThisThreadsOwnHoldIsAnInternalError(CapturedOutput output) {
		this.mvc.run((context) -> mockMvc(context).perform(get("/orders/44/amend"))
			.andExpect(status().isInternalServerError())
			.andExpect(header().doesNotExist(HttpHeaders.RETRY_AFTER))
			.andExpect(jsonPath("$.status").value(500))
			.andExpect(jsonPath("$.key").value("order:44"))
			.andExpect(jsonPath("$.reason").value("HELD_BY_THIS_THREAD")));
		assertThat(output).contains("ERROR").contains("never upgraded");
	}

	@Test
	void aFreeLockIsNotAffected() {
		this.mvc.run((context) -> mockMvc(context).perform(get("/orders/43/pay"))
			.andExpect(status().isOk())
			.andExpect(content().string("paid 43")));
	}

	@Test
	void webFluxAnswersTheSame(CapturedOutput output) throws Exception {
		Lease held = holdElsewhere("order:44");
		this.webflux.run((context) -> {
			WebTestClient client = WebTestClient.bindToApplicationContext(context)
				.configureClient()
				.responseTimeout(Duration.ofSeconds(30))
				.build();
			client.get()
				.uri("/orders/44/pay")
				.exchange()
				.expectStatus()
				.isEqualTo(409)
				.expectHeader()
				.valueEquals(HttpHeaders.RETRY_AFTER, "1")
				.expectHeader()
				.contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
				.expectBody()
				.jsonPath("$.key")
				.isEqualTo("order:44")
				.jsonPath("$.reason")
				.isEqualTo("HELD");
			held.release();
			fleet.node(0).kill();
			fleet.node(1).kill();
			client.get()
				.uri("/orders/45/pay")
				.exchange()
				.expectStatus()
				.isEqualTo(503)
				.expectBody()
				.jsonPath("$.key")
				.isEqualTo("order:45")
				.jsonPath("$.reason")
				.isEqualTo("NO_QUORUM");
		});
		assertThat(output).doesNotContain("ERROR").doesNotContain("\tat ");
	}

	@Test
	void thePropertyTurnsItOff() {
		this.mvc.withPropertyValues("redlock.web.problem-details.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockExceptionHandler.class));
		this.webflux.withPropertyValues("redlock.web.problem-details.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockExceptionHandler.class));
	}

	@Test
	void aHandlerOfTheApplicationReplacesIt() {
		this.mvc.withUserConfiguration(OwnHandler.class).run((context) -> {
			assertThat(context).hasSingleBean(LockExceptionHandler.class);
			assertThat(context.getBean(LockExceptionHandler.class)).isInstanceOf(OwnLockExceptionHandler.class);
		});
	}

	private Lease holdElsewhere(String key) throws InterruptedException {
		this.elsewhere = RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false).build().start();
		return this.elsewhere.acquire(key, Duration.ofSeconds(30), Duration.ofSeconds(5));
	}

	private static MockMvc mockMvc(WebApplicationContext context) {
		return MockMvcBuilders.webAppContextSetup(context).build();
	}

	/** A payment that waits a little for its lock. */
	public static class Payments {

		@DistributedLock(key = "'order:' + #id", ttl = "10s", waitTime = "300ms")
		public String pay(long id) {
			return "paid " + id;
		}

		@DistributedLock(key = "'order:' + #id", ttl = "10s", waitTime = "300ms")
		public Mono<String> payReactively(long id) {
			return Mono.just("paid " + id);
		}

	}

	@RestController
	static class PaymentController {

		private final Payments payments;

		private final LockRegistry registry;

		PaymentController(Payments payments, LockRegistry registry) {
			this.payments = payments;
			this.registry = registry;
		}

		@GetMapping("/orders/{id}/pay")
		String pay(@PathVariable long id) {
			return this.payments.pay(id);
		}

		@GetMapping("/orders/{id}/amend")
		String amend(@PathVariable long id) {
			try (Lease read = this.registry.acquireRead("order:" + id, Duration.ofSeconds(10), Duration.ZERO);
					Lease write = this.registry.acquireWrite("order:" + id, Duration.ofSeconds(10), Duration.ZERO)) {
				return "amended " + id;
			}
		}

	}

	@RestController
	static class ReactivePaymentController {

		private final Payments payments;

		ReactivePaymentController(Payments payments) {
			this.payments = payments;
		}

		@GetMapping("/orders/{id}/pay")
		Mono<String> pay(@PathVariable long id) {
			return this.payments.payReactively(id);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class MvcApplication {

		@Bean
		Payments payments() {
			return new Payments();
		}

		@Bean
		PaymentController paymentController(Payments payments, LockRegistry registry) {
			return new PaymentController(payments, registry);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebFlux
	static class WebFluxApplication {

		@Bean
		Payments payments() {
			return new Payments();
		}

		@Bean
		ReactivePaymentController paymentController(Payments payments) {
			return new ReactivePaymentController(payments);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnHandler {

		@Bean
		OwnLockExceptionHandler ownHandler() {
			return new OwnLockExceptionHandler();
		}

	}

	static class OwnLockExceptionHandler extends LockExceptionHandler {

	}

}
