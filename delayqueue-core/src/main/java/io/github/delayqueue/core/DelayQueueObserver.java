package io.github.delayqueue.core;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Hears what this instance does to jobs: the hook that metrics hang on. Each method is
 * called once per job, after the step succeeded in Redis, on the thread that did it; an
 * implementation must be fast, thread-safe and must not throw. Every method does nothing by
 * default; the counts are this instance's.
 */
public interface DelayQueueObserver {

	/**
	 * A job was created (new, or replacing one with {@link OnDuplicate#REPLACE}).
	 * @param topic the topic
	 */
	default void scheduled(String topic) {
	}

	/**
	 * This instance's timer fired a recurring job's ticks.
	 * @param name the recurring job's name
	 * @param topic its topic
	 * @param created occurrences created
	 * @param skipped ticks that created none
	 * @param misfired ticks that came later than the misfire threshold
	 */
	default void recurringFired(String name, String topic, long created, long skipped, long misfired) {
	}

	/**
	 * A job was reserved by a consumer of this instance.
	 * @param job the reservation; {@link ReservedJob#deliveredAt()} minus
	 * {@link ReservedJob#dueAt()} is its delivery lag
	 */
	default void delivered(ReservedJob job) {
	}

	/** A reserved job was finished. */
	default void completed(String topic) {
	}

	/** A reserved job failed and will be delivered again after its back-off. */
	default void retried(String topic) {
	}

	/** A job became DEAD: attempts used up, killed, or its last attempt's TTR ran out. */
	default void dead(String topic) {
	}

	/** {@code count} DEAD jobs were deleted under the topic's {@link Retention} of failed jobs. */
	default void deadTrimmed(String topic, long count) {
	}

	/** A reservation's TTR ran out; the job is READY again (or DEAD, which {@link #dead} also hears). */
	default void expired(String topic) {
	}

	/** A job was cancelled. */
	default void cancelled(String topic) {
	}

	/**
	 * A reserve of a topic with a {@link RateLimit} found the window full and took no job.
	 * @param topic the topic
	 */
	default void rateLimited(String topic) {
	}

	/**
	 * A listener handler ran.
	 * @param topic the topic
	 * @param duration how long the handler ran
	 * @param outcome {@code success}, {@code skipped}, or what the error handler made of a
	 * failure: {@code retry}, {@code dead}, {@code recovered}, {@code stale} or {@code left}
	 * @param failure what the handler threw, or {@code null} on success or skip
	 */
	default void handled(String topic, Duration duration, String outcome, @Nullable Throwable failure) {
	}

	/**
	 * This instance's timer found that Redis lost the namespace's data; the pinned bucket
	 * count has been put again.
	 * @param namespace the namespace
	 */
	default void dataLost(String namespace) {
	}

	/**
	 * One observer that tells each of the given ones in order, logging what one throws.
	 * @param observers the observers
	 * @return the composite
	 */
	static DelayQueueObserver composite(List<? extends DelayQueueObserver> observers) {
		return new CompositeDelayQueueObserver(List.copyOf(observers));
	}

}
