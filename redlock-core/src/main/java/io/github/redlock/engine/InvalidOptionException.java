package io.github.redlock.engine;

/**
 * Thrown by {@link RedlockRegistry.Builder#build()} for an option that cannot work: says
 * what is wrong and how to fix it, naming options as the builder does ({@code nodes},
 * {@code nodeTimeout}, ...) and nodes as {@code Node <index>}.
 *
 * @author redlock contributors
 */
public class InvalidOptionException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final String problem;

	private final String fix;

	/**
	 * Creates an exception.
	 * @param problem what is wrong
	 * @param fix what to do about it
	 */
	public InvalidOptionException(String problem, String fix) {
		super(problem + ": " + fix);
		this.problem = problem;
		this.fix = fix;
	}

	/**
	 * Returns what is wrong.
	 * @return the problem
	 */
	public String getProblem() {
		return this.problem;
	}

	/**
	 * Returns what to do about it.
	 * @return the fix
	 */
	public String getFix() {
		return this.fix;
	}

}
