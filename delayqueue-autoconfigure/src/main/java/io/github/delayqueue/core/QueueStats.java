package io.github.delayqueue.core;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Figures of the whole queue, read bucket by bucket (each bucket's figures are exact and
 * consistent; buckets are read one after another).
 *
 * @param buckets the figures of each bucket, in bucket order
 * @param topics the figures of each topic that has jobs, by topic name
 * @param readAt Redis's time when the last bucket was read
 */
public record QueueStats(List<BucketStats> buckets, Map<String, TopicStats> topics, Instant readAt) {

	/**
	 * Jobs of one topic in each state.
	 *
	 * @param delayed waiting for their due time
	 * @param ready due, waiting for a consumer
	 * @param reserved held by consumers
	 * @param dead failed for good
	 */
	public record TopicStats(long delayed, long ready, long reserved, long dead) {

		public long total() {
			return this.delayed + this.ready + this.reserved + this.dead;
		}

		TopicStats plus(TopicStats other) {
			return new TopicStats(this.delayed + other.delayed, this.ready + other.ready,
					this.reserved + other.reserved, this.dead + other.dead);
		}

	}

	/**
	 * One bucket.
	 *
	 * @param bucket the bucket number
	 * @param jobs the jobs of the bucket in each state, all topics together
	 * @param nextDueAt the earliest due time or TTR deadline the bucket's timer waits for, or
	 * {@code null} when it waits for nothing
	 * @param oldestDelayedDueAt the due time of the earliest DELAYED job, or {@code null}
	 * @param timerOwner the instance that runs this bucket's timer, or {@code null}
	 */
	public record BucketStats(int bucket, TopicStats jobs, Instant nextDueAt, Instant oldestDelayedDueAt,
			String timerOwner) {

	}

	/**
	 * All topics together.
	 * @return the totals
	 */
	public TopicStats totals() {
		return this.topics.values().stream().reduce(new TopicStats(0, 0, 0, 0), TopicStats::plus);
	}

}
