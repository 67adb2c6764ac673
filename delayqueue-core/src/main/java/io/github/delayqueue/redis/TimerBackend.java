package io.github.delayqueue.redis;

import java.util.List;

/**
 * What a {@link BucketTimer} asks of Redis; each call is one atomic script, but for {@link #renew}.
 */
interface TimerBackend {

	/** Sends this instance's heartbeat and takes its share of bucket timers; {@code leaving} gives up every bucket. */
	Coordination coordinate(boolean leaving);

	/**
	 * Extends this instance's heartbeat to {@code nowMillis} (Redis's clock) plus its TTL, and
	 * reads the earliest heartbeat expiry when {@code readEarliest}. Returns -1 when a
	 * coordination is needed (own heartbeat gone, another expired), else the expiry read or 0.
	 */
	long renew(long nowMillis, boolean readEarliest);

	/**
	 * Moves a bucket's due jobs to their ready lists and re-queues its expired reservations;
	 * marks the topics that got READY jobs for this instance's consumers.
	 */
	Promotion promote(int bucket, boolean guard);

	/** Fires the recurring jobs of a bucket whose tick has come; marks the topics as {@link #promote} does. */
	RecurringStep fireRecurring(int bucket);

	/**
	 * The outcome of {@link #fireRecurring}: the next tick (-1: none), Redis's time (-1: not
	 * asked), the topics that got READY jobs, and whether a definition moved on.
	 */
	record RecurringStep(long nextTickMillis, long redisMillis, List<String> topics, boolean progressed) {

	}

	/**
	 * The outcome of {@link #coordinate}: the live instances, Redis's time, the namespace's
	 * epoch (it changes when Redis lost the data; empty when none was written), this instance's
	 * number ({@code lib/token.lua}) and the buckets it runs.
	 */
	record Coordination(int liveInstances, long redisMillis, String epoch, int number, int[] buckets) {

	}

	/**
	 * The outcome of {@link #promote}: jobs made READY, expired reservations handled, the next
	 * due time or deadline (-1: none), Redis's time, the topics that got READY jobs, and the next
	 * recurring tick (guard re-check: -1 none; -2 not read).
	 */
	record Promotion(int moved, int expired, long nextDueMillis, long redisMillis, List<String> topics,
			long recurringTickMillis) {

	}

}
