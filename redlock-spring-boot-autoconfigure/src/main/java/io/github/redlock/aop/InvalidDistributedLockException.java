package io.github.redlock.aop;

import io.github.redlock.RedlockException;

/**
 * Thrown when a {@code @DistributedLock} annotation cannot work: a key that does not
 * parse or names no parameter, a duration that does not parse or is out of bounds, a
 * return type whose work the lock cannot cover, a method that the bean's proxy cannot
 * intercept (final, private, static, of a final class). Thrown when the bean is proxied,
 * so at start-up for a singleton; Spring Boot's failure analysis shows its description
 * and action.
 *
 * @author redlock contributors
 */
public class InvalidDistributedLockException extends RedlockException {

	private static final long serialVersionUID = 1L;

	private final String description;

	private final String action;

	/**
	 * Creates an exception.
	 * @param description what is wrong, naming the method and the attribute
	 * @param action what to do about it
	 */
	public InvalidDistributedLockException(String description, String action) {
		super(description + ". " + action);
		this.description = description;
		this.action = action;
	}

	/**
	 * Returns what is wrong.
	 * @return the description
	 */
	public String getDescription() {
		return this.description;
	}

	/**
	 * Returns what to do about it.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
