package io.github.delayqueue.forward;

import io.github.delayqueue.core.ReservedJob;

/**
 * Sends a due job to a message broker. A forwarding container calls it for each job of its
 * topic and finishes the job when it returns: it returns only once the broker acknowledged
 * the message. What it throws fails the job, retried with the container's back-off and DEAD
 * with the broker's error after its last attempt, as for any listener; an
 * {@link UnforwardableJobException} is DEAD at once (forwarding containers have no
 * recoverer).
 */
@FunctionalInterface
public interface JobForwarder {

	/**
	 * Sends the job and waits for the broker's acknowledgement.
	 * @param job the reserved job: its payload bytes, headers, id and due time
	 * @throws Exception when the broker refused the message, did not acknowledge it in time,
	 * or could not be reached
	 */
	void forward(ReservedJob job) throws Exception;

	/**
	 * Where it sends, for messages and the endpoint.
	 * @return the destination, such as "Kafka topic 'orders'"
	 */
	default String destination() {
		return getClass().getSimpleName();
	}

}
