package io.github.delayqueue.core;

/**
 * Redis could not be reached or did not answer in time; the operation may have taken effect.
 */
public class DelayQueueConnectionException extends DelayQueueException {

	/**
	 * Creates the exception.
	 * @param message what failed, with the driver's message
	 * @param cause the driver's exception
	 */
	public DelayQueueConnectionException(String message, Throwable cause) {
		super(message, cause);
	}

}
