package io.github.delayqueue.redis;

import io.github.delayqueue.scheduler.TimerBackend;

/**
 * What tests outside this package may do with a {@link RedisDelayQueue}'s internals: run a
 * bucket's timer step by hand, and read the sizes of the engine's script calls.
 */
public final class TimerSteps {

	/** The most jobs one schedule script call creates. */
	public static final int SCHEDULE_BATCH = RedisDelayQueue.SCHEDULE_BATCH;

	/** The most dead jobs one replay script call reads. */
	public static final int REPLAY_BATCH = RedisDelayQueue.REPLAY_BATCH;

	/** The most jobs one finish script call finishes. */
	public static final int FINISH_BATCH = RedisDelayQueue.FINISH_BATCH;

	private TimerSteps() {
	}

	/**
	 * Runs the timer's step on one bucket, as the queue's own timer would.
	 * @param queue the queue (built with {@code timerEnabled(false)})
	 * @param bucket the bucket
	 * @param guard {@code true} for the guard re-check
	 * @return what the step did
	 */
	public static TimerBackend.Promotion promote(RedisDelayQueue queue, int bucket, boolean guard) {
		return queue.promoteNow(bucket, guard);
	}

}
