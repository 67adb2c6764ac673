package io.github.delayqueue.forward;

import io.github.delayqueue.core.ReservedJob;

/**
 * Sends a due job to a message broker, returning once the broker acknowledged it. What it
 * throws fails the job as for any listener; an {@link UnforwardableJobException} makes it
 * DEAD at once.
 */
@FunctionalInterface
public interface JobForwarder {

	/**
	 * Sends the job and waits for the broker's acknowledgement.
	 * @param job the reserved job
	 * @throws Exception when the broker refused, did not acknowledge in time, or was unreachable
	 */
	void forward(ReservedJob job) throws Exception;

	/** Where it sends, such as "Kafka topic 'orders'", for messages and the endpoint. */
	default String destination() {
		return getClass().getSimpleName();
	}

}
