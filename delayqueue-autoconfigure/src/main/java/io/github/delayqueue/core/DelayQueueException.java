package io.github.delayqueue.core;

/**
 * Base class of the exceptions that delayqueue throws when an operation could not be
 * carried out (as opposed to {@link IllegalArgumentException} for bad input).
 */
public class DelayQueueException extends RuntimeException {

	public DelayQueueException(String message) {
		super(message);
	}

	public DelayQueueException(String message, Throwable cause) {
		super(message, cause);
	}

}
