package io.github.delayqueue.listener;

import io.github.delayqueue.core.ReservedJob;

/**
 * Takes a job whose attempts are used up or whose failure is not retryable, instead of the
 * job going DEAD in Redis: when it returns the job is finished; when it throws, the job is
 * DEAD after all.
 */
@FunctionalInterface
public interface DelayedJobRecoverer {

	/**
	 * Recover a job.
	 * @param job the job, still reserved by this consumer
	 * @param failure the last failure
	 * @throws Exception to have the job dead-lettered in Redis
	 */
	void recover(ReservedJob job, Throwable failure) throws Exception;

}
