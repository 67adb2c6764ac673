package io.github.delayqueue.core;

/**
 * Redis could not be reached or did not answer in time; the operation may have taken effect.
 */
public class DelayQueueConnectionException extends DelayQueueException {

	/** Creates the exception with what failed (the driver's message in it) and the driver's exception. */
	public DelayQueueConnectionException(String message, Throwable cause) {
		super(message, cause);
	}

}
