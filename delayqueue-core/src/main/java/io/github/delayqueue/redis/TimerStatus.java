package io.github.delayqueue.redis;

import org.jspecify.annotations.Nullable;

/**
 * A read-only view of this instance's bucket timer, for health checks and metrics. Thread-safe.
 */
public interface TimerStatus {

	/**
	 * Whether the timer thread runs.
	 * @return {@code true} between the queue's start and its stop
	 */
	boolean isRunning();

	/**
	 * When the timer's loop last completed a step.
	 * @return the {@link System#nanoTime()} of the last progress
	 */
	long lastProgressNanos();

	/**
	 * How many buckets this instance runs the timer of.
	 * @return the count
	 */
	default int ownedBuckets() {
		return ownedBucketNumbers().length;
	}

	/**
	 * The buckets this instance runs the timer of.
	 * @return the bucket numbers, in order
	 */
	int[] ownedBucketNumbers();

	/**
	 * The failure of the timer's last step.
	 * @return the error, or {@code null} when the last step succeeded
	 */
	@Nullable Throwable lastError();

}
