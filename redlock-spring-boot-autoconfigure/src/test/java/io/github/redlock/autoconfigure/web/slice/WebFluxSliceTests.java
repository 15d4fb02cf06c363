package io.github.redlock.autoconfigure.web.slice;

import io.github.redlock.LockAcquisitionException.Reason;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webflux.test.autoconfigure.WebFluxTest;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * A {@code @WebFluxTest} answers a refused lock as production does: 409 for a lock held
 * elsewhere, 503 for no quorum. Failed before the slice imported the web
 * auto-configuration (META-INF/spring/...AutoConfigureWebFlux.imports): "Status
 * expected:&lt;409 CONFLICT&gt; but was:&lt;500 INTERNAL_SERVER_ERROR&gt;".
 */
@WebFluxTest
class WebFluxSliceTests {

	@Autowired
	private WebTestClient client;

	@Test
	void aLockHeldElsewhereAnswers409() {
		this.client.get()
			.uri("/refused/" + Reason.HELD)
			.exchange()
			.expectStatus()
			.isEqualTo(409)
			.expectHeader()
			.valueEquals("Retry-After", "1")
			.expectBody()
			.jsonPath("$.reason")
			.isEqualTo("HELD");
	}

	@Test
	void noQuorumAnswers503() {
		this.client.get().uri("/refused/" + Reason.NO_QUORUM).exchange().expectStatus().isEqualTo(503);
	}

}
