package io.github.delayqueue.core;

/**
 * Base class of the exceptions that delayqueue throws when an operation could not be
 * carried out (as opposed to {@link IllegalArgumentException} for bad input).
 */
public class DelayQueueException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param message what failed
	 */
	public DelayQueueException(String message) {
		super(message);
	}

	/**
	 * Creates the exception.
	 * @param message what failed
	 * @param cause the underlying failure
	 */
	public DelayQueueException(String message, Throwable cause) {
		super(message, cause);
	}

}
