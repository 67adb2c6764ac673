package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.ReservedJob;

/**
 * What tests outside this package may do with a {@link RedisDelayQueue}'s internals: run a
 * bucket's timer step or its firing of recurring jobs by hand, halt a queue as a crash would,
 * and read the sizes of the engine's script calls.
 */
public final class TimerSteps {

	/** The most jobs one schedule script call creates. */
	public static final int SCHEDULE_BATCH = RedisProducer.SCHEDULE_BATCH;

	/** The most dead jobs one replay script call reads. */
	public static final int REPLAY_BATCH = RedisAdmin.REPLAY_BATCH;

	/** The most jobs one finish script call finishes. */
	public static final int FINISH_BATCH = RedisConsumer.FINISH_BATCH;

	private TimerSteps() {
	}

	/**
	 * Runs the timer's step on one bucket, as the queue's own timer would.
	 * @param queue the queue (built with {@code timerEnabled(false)})
	 * @param bucket the bucket
	 * @param guard {@code true} for the guard re-check
	 * @return what the step did
	 */
	public static Promotion promote(RedisDelayQueue queue, int bucket, boolean guard) {
		TimerBackend.Promotion promotion = queue.timerBackend.promote(bucket, guard);
		return new Promotion(promotion.moved(), promotion.expired(), promotion.nextDueMillis(),
				promotion.redisMillis(), promotion.topics());
	}

	/**
	 * Runs a timer step (not a guard re-check) on one bucket with offers of waiting consumers:
	 * the jobs it reserves for them go to {@code reserved} (topic to jobs, in the reply's
	 * order), to the caller, not to any consumer.
	 * @param queue the queue (built with {@code timerEnabled(false)})
	 * @param bucket the bucket
	 * @param offers one per topic
	 * @param reserved receives the jobs reserved
	 * @return what the step did
	 */
	public static Promotion promoteOffering(RedisDelayQueue queue, int bucket, List<Offer> offers,
			Map<String, List<ReservedJob>> reserved) {
		List<Offers.Offering> offerings = offers.stream()
			.map((offer) -> new Offers.Offering(offer.topic(), Thread.currentThread(),
					new Offers.Offer(offer.max(), offer.ttrMillis(), offer.attemptsLimit())))
			.toList();
		ScriptReplies.Promoted promoted = queue.timerBackend.promote(bucket, false, offerings, (topic, jobs) -> {
		});
		// as the timer's loop does
		promoted.promotion().topics().forEach((topic) -> queue.signals.markReady(topic, bucket));
		reserved.putAll(promoted.reserved());
		TimerBackend.Promotion promotion = promoted.promotion();
		return new Promotion(promotion.moved(), promotion.expired(), promotion.nextDueMillis(),
				promotion.redisMillis(), promotion.topics());
	}

	/**
	 * A waiting consumer's offer to a timer step.
	 *
	 * @param topic the topic
	 * @param max the most jobs
	 * @param ttrMillis the reservation's TTR, 0 for each job's own
	 * @param attemptsLimit the attempts limit stored, 0 for each job's own
	 */
	public record Offer(String topic, int max, long ttrMillis, int attemptsLimit) {

	}

	/**
	 * Stops a queue's timer, its hand-overs and its subscription without giving up its buckets,
	 * as a crash would.
	 * @param queue the queue
	 */
	public static void halt(RedisDelayQueue queue) {
		queue.timer.halt();
		queue.timerBackend.stop(Duration.ZERO);
		queue.subscriber.stop();
	}

	/**
	 * Fires the recurring jobs of one bucket whose tick has come, as the queue's own timer
	 * would.
	 * @param queue the queue (built with {@code timerEnabled(false)})
	 * @param bucket the bucket
	 * @return the topics that got READY occurrences
	 */
	public static List<String> fireRecurring(RedisDelayQueue queue, int bucket) {
		return queue.timerBackend.fireRecurring(bucket).topics();
	}

	/**
	 * Whether this instance has a bucket of a topic marked as holding READY jobs (no reserve
	 * found it empty since it was announced): where its reserves look.
	 * @param queue the queue
	 * @param topic the topic
	 * @param bucket the bucket
	 * @return {@code true} when marked
	 */
	public static boolean isMarked(RedisDelayQueue queue, String topic, int bucket) {
		ReadySignals.TopicSignal signal = queue.signals.existing(topic);
		return signal != null && signal.markedGeneration(bucket) >= 0;
	}

	/**
	 * What a timer step did.
	 *
	 * @param moved DELAYED jobs made READY
	 * @param expired expired reservations handled
	 * @param nextDueMillis the earliest due time or TTR deadline left, or -1 for none
	 * @param redisMillis Redis's time
	 * @param topics the topics that got READY jobs
	 */
	public record Promotion(int moved, int expired, long nextDueMillis, long redisMillis, List<String> topics) {

	}

}
