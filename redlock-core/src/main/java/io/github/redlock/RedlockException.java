package io.github.redlock;

import org.jspecify.annotations.Nullable;

/**
 * Base of the exceptions this library throws about locks.
 *
 * @author redlock contributors
 */
public class RedlockException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what happened and what to do
	 */
	public RedlockException(String message) {
		super(message);
	}

	/**
	 * Creates an exception with a cause.
	 * @param message what happened and what to do
	 * @param cause the cause, or {@code null}
	 */
	public RedlockException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
