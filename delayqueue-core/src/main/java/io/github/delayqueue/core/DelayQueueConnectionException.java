package io.github.delayqueue.core;

/**
 * Redis could not be reached or did not answer in time. The operation may or may not have
 * taken effect when the connection broke after the command was sent: scheduling with the
 * same topic and id again is safe (duplicates are detected).
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
