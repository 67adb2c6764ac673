package io.github.delayqueue.listener;

import io.github.delayqueue.core.ReservedJob;

/**
 * Decides what becomes of a job whose attempts are used up or whose failure is not
 * retryable. The default dead-letters it in Redis (state DEAD, error recorded, replayable).
 * A custom recoverer (a bean of this type) takes over: when it returns normally the job is
 * finished (removed from Redis); when it throws (an exception or an {@link Error}), the job
 * is dead-lettered in Redis after all. It is called for a failure of the job's last attempt
 * by its attempts limit ({@link ReservedJob#maxAttempts()}: the listener's
 * {@code maxAttempts} when it sets one), not when a TTR runs out on that attempt: Redis then
 * makes the job DEAD.
 */
@FunctionalInterface
public interface DelayedJobRecoverer {

	/**
	 * Recovers a job.
	 * @param job the job, still reserved by this consumer
	 * @param failure the last failure
	 * @throws Exception to have the job dead-lettered in Redis
	 */
	void recover(ReservedJob job, Throwable failure) throws Exception;

}
