package io.github.delayqueue.listener;

import org.springframework.messaging.Message;

/**
 * What a container calls for each job, with the payload bytes and the
 * {@link DelayQueueHeaders}; a return is a success, anything thrown a failure.
 */
@FunctionalInterface
public interface DelayedJobHandler {

	/**
	 * Handle one job.
	 * @param message the job as a message
	 * @throws Exception when the job failed
	 */
	void handle(Message<byte[]> message) throws Exception;

}
