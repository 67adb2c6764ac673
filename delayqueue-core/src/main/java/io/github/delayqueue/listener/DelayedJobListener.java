package io.github.delayqueue.listener;

import io.github.delayqueue.core.DelayedJob;

/**
 * A listener as a lambda, for a {@link io.github.delayqueue.config.SimpleDelayedListenerEndpoint};
 * a return is a success, anything thrown a failure.
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface DelayedJobListener<T> {

	/**
	 * Handle one job.
	 * @param job the job; {@link DelayedJob#payload()} is read already
	 * @throws Exception when the job failed
	 */
	void onJob(DelayedJob<T> job) throws Exception;

}
