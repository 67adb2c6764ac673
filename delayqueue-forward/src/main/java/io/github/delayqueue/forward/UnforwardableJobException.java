package io.github.delayqueue.forward;

/**
 * A job that no retry can send: the forwarding container makes it DEAD at once.
 */
public class UnforwardableJobException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param message what is wrong with the job
	 */
	public UnforwardableJobException(String message) {
		super(message);
	}

}
