package io.github.delayqueue.core;

/**
 * Base class of the exceptions that delayqueue throws when an operation could not be
 * carried out (as opposed to {@link IllegalArgumentException} for bad input).
 */
public class DelayQueueException extends RuntimeException {

	/** Creates the exception with what failed. */
	public DelayQueueException(String message) {
		super(message);
	}

	/** Creates the exception with what failed and the underlying failure. */
	public DelayQueueException(String message, Throwable cause) {
		super(message, cause);
	}

}
