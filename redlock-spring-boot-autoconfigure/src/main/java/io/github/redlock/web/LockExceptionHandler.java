package io.github.redlock.web;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockAcquisitionException.Reason;
import io.github.redlock.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers a request whose lock was refused as Spring answers an
 * {@link org.springframework.web.ErrorResponse} exception: a status and an RFC 9457
 * {@link ProblemDetail} body, in Spring MVC and WebFlux alike, with one DEBUG line
 * instead of an ERROR and a stack trace (a refusal is expected, not a fault).
 * <ul>
 * <li>{@link Reason#HELD}: {@code 409 Conflict} with {@code Retry-After}, since another
 * owner holds the lock and a retry later may succeed;</li>
 * <li>{@link Reason#NO_QUORUM}, {@link Reason#VALIDITY_EXHAUSTED}: {@code 503 Service
 * Unavailable}, since the lock service, not the resource, is unavailable; with
 * {@code Retry-After} when only the restart guard keeps the nodes out (new, restarted or
 * flushed nodes), which the body's {@code detail} then says, with when locking comes back
 * ({@link LockAcquisitionException#getRetryAfter()});</li>
 * <li>{@link Reason#INTERRUPTED} and a {@link LockLostException}: {@code 503}.</li>
 * <li>{@link Reason#HELD_BY_THIS_THREAD}: {@code 500 Internal Server Error}, logged at
 * ERROR with the stack trace: the request's own code asked for a lock its thread's hold
 * excludes (such as a write lock under its read lock), which no retry mends.</li>
 * </ul>
 * The body carries the lock's {@code key} and the {@code reason} (the {@link Reason}
 * name, or {@code LOST}); its {@code detail} names neither nodes nor owners.
 * Auto-configured in web applications unless {@code redlock.web.problem-details.enabled}
 * is {@code false} or a bean of this type exists: subclass it to change a body, or handle
 * the exceptions with an {@code @ExceptionHandler} of your own, which takes precedence.
 *
 * @author redlock contributors
 */
@RestControllerAdvice
public class LockExceptionHandler {

	/** The {@code reason} of a lock lost while the request's work ran. */
	public static final String LOST = "LOST";

	private static final Log logger = LogFactory.getLog(LockExceptionHandler.class);

	/**
	 * Answers a lock that could not be acquired.
	 * @param ex the exception
	 * @return 409 for a lock held elsewhere, else 503, with a problem detail
	 */
	@ExceptionHandler(LockAcquisitionException.class)
	public ResponseEntity<ProblemDetail> handleLockAcquisitionException(LockAcquisitionException ex) {
		HttpStatus status = statusOf(ex.getReason());
		ProblemDetail body = problemDetail(ex, status);
		if (status.is5xxServerError() && status != HttpStatus.SERVICE_UNAVAILABLE) {
			logger.error("Answered " + status.value() + ": " + ex.getMessage(), ex);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Answered " + status.value() + ": " + ex.getMessage());
		}
		ResponseEntity.BodyBuilder response = ResponseEntity.status(status);
		if (status == HttpStatus.CONFLICT) {
			response.header(HttpHeaders.RETRY_AFTER, "1");
		}
		else {
			ex.getRetryAfter()
				.ifPresent((retryAfter) -> response.header(HttpHeaders.RETRY_AFTER,
						String.valueOf(Math.max(1, retryAfter.toSeconds()))));
		}
		return response.body(body);
	}

	/**
	 * Answers a lock lost while the request's work ran (the registry has logged it).
	 * @param ex the exception
	 * @return 503 with a problem detail
	 */
	@ExceptionHandler(LockLostException.class)
	public ResponseEntity<ProblemDetail> handleLockLostException(LockLostException ex) {
		ProblemDetail body = problemDetail(ex);
		if (logger.isDebugEnabled()) {
			logger.debug("Answered 503: " + ex.getMessage());
		}
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(body);
	}

	/**
	 * Returns the status for a reason.
	 * @param reason why the lock was not acquired, or {@code null}
	 * @return {@code CONFLICT} for {@link Reason#HELD}, {@code INTERNAL_SERVER_ERROR} for
	 * {@link Reason#HELD_BY_THIS_THREAD}, else {@code SERVICE_UNAVAILABLE}
	 */
	protected HttpStatus statusOf(@Nullable Reason reason) {
		if (reason == Reason.HELD) {
			return HttpStatus.CONFLICT;
		}
		return (reason == Reason.HELD_BY_THIS_THREAD) ? HttpStatus.INTERNAL_SERVER_ERROR
				: HttpStatus.SERVICE_UNAVAILABLE;
	}

	/**
	 * Returns the body for a lock that could not be acquired.
	 * @param ex the exception
	 * @param status the status chosen by {@link #statusOf(Reason)}
	 * @return the problem detail, with {@code key} and {@code reason} properties
	 */
	protected ProblemDetail problemDetail(LockAcquisitionException ex, HttpStatus status) {
		Reason reason = ex.getReason();
		String detail = (reason == Reason.HELD) ? "Lock '" + ex.getKey() + "' is held elsewhere; retry later."
				: "Lock '" + ex.getKey() + "' could not be acquired: "
						+ ((reason != null) ? reason.description() : "refused")
						+ ex.getRetryAfter()
							.map((retryAfter) -> "; the nodes are new or restarted, and the restart guard keeps them"
									+ " out until every lock they may have forgotten has expired: locking is possible"
									+ " again in about " + Math.max(1, retryAfter.toSeconds()) + "s")
							.orElse("")
						+ ".";
		ProblemDetail body = ProblemDetail.forStatusAndDetail(status, detail);
		body.setTitle((reason == Reason.HELD) ? "Lock held elsewhere"
				: (reason == Reason.HELD_BY_THIS_THREAD) ? "Lock refused to its own holder" : "Locking unavailable");
		body.setProperty("key", ex.getKey());
		body.setProperty("reason", (reason != null) ? reason.name() : null);
		return body;
	}

	/**
	 * Returns the body for a lock lost while the request's work ran.
	 * @param ex the exception
	 * @return the problem detail, with {@code key} and {@code reason} ({@value #LOST})
	 */
	protected ProblemDetail problemDetail(LockLostException ex) {
		ProblemDetail body = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, "Lock '" + ex.getKey()
				+ "' was lost while the request's work ran; that work may have overlapped with another holder's.");
		body.setTitle("Lock lost");
		body.setProperty("key", ex.getKey());
		body.setProperty("reason", LOST);
		return body;
	}

}
