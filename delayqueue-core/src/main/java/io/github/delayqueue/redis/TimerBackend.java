package io.github.delayqueue.redis;

import java.util.List;

/**
 * What a {@link BucketTimer} asks of Redis. Each call is one atomic script.
 */
interface TimerBackend {

	/**
	 * Sends this instance's heartbeat and takes its fair share of bucket timers.
	 * @param leaving {@code true} to leave: give up every bucket at once
	 * @return the outcome
	 */
	Coordination coordinate(boolean leaving);

	/**
	 * Renews this instance's heartbeat alone, the beat between coordinations: one or two
	 * plain commands, no script. Not atomic, and it need not be: it only extends a heartbeat
	 * that is still there, and only reads whether another one ran out.
	 * @param nowMillis this instance's estimate of Redis's time (the heartbeat then expires at
	 * this time plus its TTL)
	 * @param readEarliest whether to read the earliest heartbeat expiry: needed only once the
	 * earliest read before may have passed, as no heartbeat runs out earlier
	 * @return -1 asks for a coordination (the heartbeat was gone, or another one has run out);
	 * else the earliest expiry read, or 0 when it was not read
	 */
	long renew(long nowMillis, boolean readEarliest);

	/**
	 * Moves due jobs of a bucket to their ready lists and re-queues expired reservations.
	 * @param bucket the bucket
	 * @param guard {@code true} to also re-announce every topic of the bucket with READY jobs
	 * @return the outcome
	 */
	Promotion promote(int bucket, boolean guard);

	/**
	 * Fires the recurring jobs of a bucket whose tick has come.
	 * @param bucket the bucket
	 * @return the outcome; a backend without recurring jobs answers {@link RecurringStep#NONE}
	 */
	default RecurringStep fireRecurring(int bucket) {
		return RecurringStep.NONE;
	}

	/**
	 * The outcome of {@link #fireRecurring}.
	 *
	 * @param nextTickMillis the bucket's next recurring tick, or -1 for none
	 * @param redisMillis Redis's time, or -1 when Redis was not asked
	 * @param topics the topics that got READY jobs
	 * @param progressed whether a definition moved on (false when every one read had changed
	 * meanwhile, or its tick had not come by Redis's clock: the timer then waits before it
	 * tries again)
	 */
	record RecurringStep(long nextTickMillis, long redisMillis, List<String> topics, boolean progressed) {

		/** No recurring jobs. */
		static final RecurringStep NONE = new RecurringStep(-1, -1, List.of(), true);

	}

	/**
	 * The outcome of {@link #coordinate}.
	 *
	 * @param liveInstances how many instances run timers
	 * @param redisMillis Redis's time
	 * @param epoch when the namespace's data was first written (it changes when Redis lost it),
	 * empty when an instance leaves before any was written
	 * @param buckets the buckets this instance runs the timer of
	 */
	record Coordination(int liveInstances, long redisMillis, String epoch, int[] buckets) {

	}

	/**
	 * The outcome of {@link #promote}.
	 *
	 * @param moved DELAYED jobs made READY
	 * @param expired expired reservations handled
	 * @param nextDueMillis the earliest due time or TTR deadline left, or -1 for none
	 * @param redisMillis Redis's time
	 * @param topics the topics that got READY jobs
	 * @param recurringTickMillis on a guard re-check, the bucket's next recurring tick (-1:
	 * none); -2 when it was not read
	 */
	record Promotion(int moved, int expired, long nextDueMillis, long redisMillis, List<String> topics,
			long recurringTickMillis) {

		/**
		 * A promotion that did not read the recurring ticks.
		 */
		Promotion(int moved, int expired, long nextDueMillis, long redisMillis, List<String> topics) {
			this(moved, expired, nextDueMillis, redisMillis, topics, -2);
		}

	}

}
