package io.github.delayqueue.config;

import org.jspecify.annotations.Nullable;

/**
 * A listener endpoint that cannot be run; the message names the listener, the problem and the fix.
 */
public class InvalidDelayedListenerException extends IllegalStateException {

	private final String listener;

	private final String problem;

	private final String fix;

	/**
	 * Create the exception.
	 * @param listener the listener, as {@link DelayedListenerEndpoint#describe()} names it
	 * @param problem what is wrong, to follow the listener's name ("takes no parameters")
	 * @param fix what to do ("declare the payload parameter")
	 * @param cause the cause, or {@code null}
	 */
	public InvalidDelayedListenerException(String listener, String problem, String fix, @Nullable Throwable cause) {
		super(listener + " " + problem + ": " + fix, cause);
		this.listener = listener;
		this.problem = problem;
		this.fix = fix;
	}

	/** Return the listener, as {@link DelayedListenerEndpoint#describe()} names it. */
	public String getListener() {
		return this.listener;
	}

	/** Return what is wrong with the listener. */
	public String getProblem() {
		return this.problem;
	}

	/** Return what to do. */
	public String getFix() {
		return this.fix;
	}

}
