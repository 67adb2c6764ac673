package io.github.delayqueue.config;

import org.jspecify.annotations.Nullable;

/**
 * A {@code @DelayedListener} (or an endpoint registered by a
 * {@link DelayedListenerConfigurer}) that cannot be run: start-up fails with it. Its message
 * names the listener's bean and method, what is wrong and the fix.
 */
public class InvalidDelayedListenerException extends IllegalStateException {

	private final String listener;

	private final String problem;

	private final String fix;

	/**
	 * Creates the exception.
	 * @param listener the listener, as {@link MethodDelayedListenerEndpoint#describe()}
	 * names it
	 * @param problem what is wrong with it, to follow the listener's name in a sentence
	 * ("takes no parameters")
	 * @param fix what to do ("declare the payload parameter")
	 * @param cause the cause, or {@code null}
	 */
	public InvalidDelayedListenerException(String listener, String problem, String fix, @Nullable Throwable cause) {
		super(listener + " " + problem + ": " + fix, cause);
		this.listener = listener;
		this.problem = problem;
		this.fix = fix;
	}

	/**
	 * The listener's bean and method.
	 * @return the listener as {@link MethodDelayedListenerEndpoint#describe()} names it
	 */
	public String getListener() {
		return this.listener;
	}

	/**
	 * What is wrong with the listener, to follow its name in a sentence.
	 * @return the problem
	 */
	public String getProblem() {
		return this.problem;
	}

	/**
	 * What to do.
	 * @return the fix
	 */
	public String getFix() {
		return this.fix;
	}

}
