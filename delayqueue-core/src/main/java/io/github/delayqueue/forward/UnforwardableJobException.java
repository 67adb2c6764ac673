package io.github.delayqueue.forward;

/**
 * A job that no retry can send, such as one whose payload lacks the field its record key is
 * read from: the forwarding container (which has no recoverer) makes it DEAD at once, with
 * this message as its error.
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
