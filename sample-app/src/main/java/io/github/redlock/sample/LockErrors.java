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
 * Maps lock failures to HTTP: busy is 409 Conflict with Retry-After, lost is 503.
 */
@RestControllerAdvice
public class LockErrors {

	@ExceptionHandler(LockAcquisitionException.class)
	public ResponseEntity<ProblemDetail> busy(LockAcquisitionException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
				"'" + ex.getKey() + "' is busy; retry later");
		return ResponseEntity.status(HttpStatus.CONFLICT).header(HttpHeaders.RETRY_AFTER, "1").body(problem);
	}

	@ExceptionHandler(LockLostException.class)
	public ProblemDetail lost(LockLostException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
	}

}
