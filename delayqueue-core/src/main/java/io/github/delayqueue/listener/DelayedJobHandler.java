package io.github.delayqueue.listener;

import org.springframework.messaging.Message;

/**
 * What a container calls for each job: the endpoint's listener, made by
 * {@link io.github.delayqueue.config.DelayedListenerEndpoint#createHandler}. The message
 * carries the stored payload bytes and the job's {@link DelayQueueHeaders}, and the job
 * itself for {@link DelayedJobArgumentResolver}. A return is a success; anything thrown, an
 * {@link Error} included, is a failure of the job, settled by the container's
 * {@link DelayedJobErrorHandler}.
 */
@FunctionalInterface
public interface DelayedJobHandler {

	/**
	 * Handles one job.
	 * @param message the job as a message
	 * @throws Exception when the job failed
	 */
	void handle(Message<byte[]> message) throws Exception;

}
