package io.github.delayqueue.core;

/**
 * A payload could not be written as JSON or read into the requested type.
 */
public class PayloadConversionException extends DelayQueueException {

	/** Creates the exception with what could not be converted and the mapper's exception. */
	public PayloadConversionException(String message, Throwable cause) {
		super(message, cause);
	}

}
