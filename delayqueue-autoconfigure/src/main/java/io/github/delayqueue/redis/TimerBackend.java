package io.github.delayqueue.redis;

import java.util.List;

/**
 * What a {@link BucketTimer} asks of Redis. Each call is one atomic script.
 */
interface TimerBackend {

	/**
	 * Sends this instance's heartbeat and takes its fair share of bucket timers.
	 * @param leaving {@code true} to leave: give up every bucket at once
	 * @param renewOnly {@code true} to only renew the heartbeat when nothing changed (no
	 * instance joined, left or expired); the outcome says so with {@code liveInstances} -1
	 * @return the outcome
	 */
	Coordination coordinate(boolean leaving, boolean renewOnly);

	/**
	 * Moves due jobs of a bucket to their ready lists and re-queues expired reservations.
	 * @param bucket the bucket
	 * @param guard {@code true} to also re-announce every topic of the bucket with READY jobs
	 * @return the outcome
	 */
	Promotion promote(int bucket, boolean guard);

	/**
	 * The outcome of {@link #coordinate}.
	 *
	 * @param liveInstances how many instances run timers, or -1 when a renewal found nothing
	 * changed (and {@code buckets} is empty: this instance keeps the ones it has)
	 * @param redisMillis Redis's time
	 * @param buckets the buckets this instance runs the timer of
	 */
	record Coordination(int liveInstances, long redisMillis, int[] buckets) {

		/**
		 * Whether this was a renewal that found nothing changed.
		 * @return {@code true} when the shares are as they were
		 */
		public boolean unchanged() {
			return this.liveInstances < 0;
		}

	}

	/**
	 * The outcome of {@link #promote}.
	 *
	 * @param moved DELAYED jobs made READY
	 * @param expired expired reservations handled
	 * @param nextDueMillis the earliest due time or TTR deadline left, or -1 for none
	 * @param redisMillis Redis's time
	 * @param topics the topics that got READY jobs
	 */
	record Promotion(int moved, int expired, long nextDueMillis, long redisMillis, List<String> topics) {

	}

}
