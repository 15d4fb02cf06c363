package io.github.redlock.autoconfigure.web.slice;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.test.web.servlet.MockMvc;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * A {@code @WebMvcTest} answers a refused lock as production does: 409 for a lock held
 * elsewhere, 503 for no quorum. Failed before the slice imported the web
 * auto-configuration: the exception escaped the MockMvc call ("Request processing failed:
 * io.github.redlock.LockAcquisitionException: held").
 */
@WebMvcTest
class WebMvcSliceTests {

	@Autowired
	private MockMvc mvc;

	@Test
	void aLockHeldElsewhereAnswers409() throws Exception {
		this.mvc.perform(get("/refused/HELD"))
			.andExpect(status().isConflict())
			.andExpect(header().string("Retry-After", "1"))
			.andExpect(jsonPath("$.reason").value("HELD"));
	}

	@Test
	void noQuorumAnswers503() throws Exception {
		this.mvc.perform(get("/refused/NO_QUORUM")).andExpect(status().isServiceUnavailable());
	}

}
