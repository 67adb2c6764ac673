package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Figures of the whole queue, read bucket by bucket (each bucket's figures are consistent).
 *
 * @param buckets the figures of each bucket, in bucket order
 * @param topics the figures of each topic that has jobs, by topic name
 * @param readAt Redis's time when the last bucket was read
 * @param completed the finished jobs kept by each topic with a known {@link Retention}
 */
public record QueueStats(List<BucketStats> buckets, Map<String, TopicStats> topics, Instant readAt,
		Map<String, Long> completed) {

	/**
	 * Jobs of one topic in each state.
	 *
	 * @param delayed waiting for their due time
	 * @param ready due, waiting for a consumer
	 * @param reserved held by consumers
	 * @param dead failed for good
	 * @param overdueSince the due time of the oldest job due but not delivered, or {@code null}
	 */
	public record TopicStats(long delayed, long ready, long reserved, long dead, @Nullable Instant overdueSince) {

		/** No jobs. */
		public static final TopicStats EMPTY = new TopicStats(0, 0, 0, 0, null);

		/**
		 * All jobs of the topic, in any state.
		 * @return the sum of the four counts
		 */
		public long total() {
			return this.delayed + this.ready + this.reserved + this.dead;
		}

		/**
		 * How long the oldest overdue job has waited at a moment.
		 * @param now the moment (normally {@link QueueStats#readAt()})
		 * @return the lag, zero when no job is overdue
		 */
		public Duration overdueLag(Instant now) {
			return (this.overdueSince == null || !now.isAfter(this.overdueSince)) ? Duration.ZERO
					: Duration.between(this.overdueSince, now);
		}

		/**
		 * The jobs of this and another together.
		 * @param other the other jobs
		 * @return the counts added, with the earlier of the two overdue times
		 */
		public TopicStats plus(TopicStats other) {
			return new TopicStats(this.delayed + other.delayed, this.ready + other.ready,
					this.reserved + other.reserved, this.dead + other.dead,
					earlier(this.overdueSince, other.overdueSince));
		}

		private static @Nullable Instant earlier(@Nullable Instant a, @Nullable Instant b) {
			return (a == null || (b != null && b.isBefore(a))) ? b : a;
		}

	}

	/**
	 * One bucket.
	 *
	 * @param bucket the bucket number
	 * @param jobs the jobs of the bucket in each state, all topics together
	 * @param nextDueAt the earliest time the bucket's timer waits for, or {@code null}
	 * @param oldestDelayedDueAt the due time of the earliest DELAYED job, or {@code null}
	 * @param timerOwner the instance that runs this bucket's timer, or {@code null}
	 */
	public record BucketStats(int bucket, TopicStats jobs, @Nullable Instant nextDueAt,
			@Nullable Instant oldestDelayedDueAt, @Nullable String timerOwner) {

	}

	/** All topics together. */
	public TopicStats totals() {
		return this.topics.values().stream().reduce(TopicStats.EMPTY, TopicStats::plus);
	}

	/** How long the oldest job due but not delivered had waited when read; zero when none is overdue. */
	public Duration oldestOverdueLag() {
		return totals().overdueLag(this.readAt);
	}

}
