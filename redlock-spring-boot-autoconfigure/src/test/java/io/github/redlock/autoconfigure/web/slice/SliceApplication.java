package io.github.redlock.autoconfigure.web.slice;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockAcquisitionException.Reason;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application the slice tests find: one controller whose lock is refused for the
 * reason in the path, in Spring MVC and in WebFlux alike.
 */
@SpringBootConfiguration
@Import(SliceApplication.RefusingController.class)
class SliceApplication {

	@RestController
	static class RefusingController {

		@GetMapping("/refused/{reason}")
		String refused(@PathVariable Reason reason) {
			throw new LockAcquisitionException(reason, "order:7", reason.description());
		}

	}

}
