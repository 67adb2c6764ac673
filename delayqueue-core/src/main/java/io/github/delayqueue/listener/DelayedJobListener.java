package io.github.delayqueue.listener;

import io.github.delayqueue.core.DelayedJob;

/**
 * A listener as a lambda, for a
 * {@link io.github.delayqueue.config.SimpleDelayedListenerEndpoint}: called once per
 * delivery of a job, with the job and its payload. A return is a success; anything thrown is
 * a failure of the job, retried or dead-lettered by the container's error handler.
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface DelayedJobListener<T> {

	/**
	 * Handles one job.
	 * @param job the job; {@link DelayedJob#payload()} is read already
	 * @throws Exception when the job failed
	 */
	void onJob(DelayedJob<T> job) throws Exception;

}
