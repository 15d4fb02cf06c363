package io.github.redlock.sample;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Maps lock failures to HTTP: busy is 409 Conflict with Retry-After; no quorum, too slow
 * and lost are 503; a lock refused by the thread's own hold (a bug) is 500.
 */
@RestControllerAdvice
public class LockErrors {

	@ExceptionHandler(LockAcquisitionException.class)
	public ResponseEntity<ProblemDetail> notAcquired(LockAcquisitionException ex) {
		if (ex.getReason() == LockAcquisitionException.Reason.HELD) {
			ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
					"'" + ex.getKey() + "' is busy; retry later");
			return ResponseEntity.status(HttpStatus.CONFLICT).header(HttpHeaders.RETRY_AFTER, "1").body(problem);
		}
		if (ex.getReason() == LockAcquisitionException.Reason.HELD_BY_THIS_THREAD) {
			// the code asked for a lock its own thread's hold excludes: a bug, not a
			// busy resource
			return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR)
				.body(ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR, ex.getMessage()));
		}
		// no quorum, or the nodes too slow: locking is unavailable, the resource is not
		// busy
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.body(ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
					"Locking is unavailable: " + ex.getReason().description()));
	}

	@ExceptionHandler(LockLostException.class)
	public ProblemDetail lost(LockLostException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
	}

}
