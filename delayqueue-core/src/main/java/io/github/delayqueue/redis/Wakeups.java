package io.github.delayqueue.redis;

import io.github.delayqueue.core.JobState;

/**
 * Where this instance's timer and consumers are told that a bucket got work: a job became
 * READY (the consumers of its topic wake), a job became the earliest of a bucket's delay queue
 * (the timer wakes earlier), a bucket must be looked at again.
 *
 * <p>
 * Two sources feed it, each for its own writes: the replies of this instance's script calls,
 * before the call returns (the producer, consumer and admin parts and the timer's
 * promotions), and the channel for the other instances' calls ({@link EventSubscriber}).
 * Every method is idempotent in effect, as this instance also hears the echo of its own
 * writes on the channel. Thread-safe.
 */
final class Wakeups {

	private final ReadySignals signals;

	private final BucketTimer timer;

	Wakeups(ReadySignals signals, BucketTimer timer) {
		this.signals = signals;
		this.timer = timer;
	}

	/**
	 * A ready list of a topic got jobs: its consumers in this instance wake.
	 * @param topic the topic
	 * @param bucket the bucket
	 */
	void ready(String topic, int bucket) {
		this.signals.markReady(topic, bucket);
	}

	/**
	 * A job or a TTR deadline became the earliest event of a bucket: the timer wakes for it
	 * when it runs the bucket.
	 * @param bucket the bucket
	 * @param dueMillis its time by Redis's clock
	 */
	void head(int bucket, long dueMillis) {
		this.timer.onHead(bucket, dueMillis);
	}

	/**
	 * A job was written to a bucket: READY wakes its consumers, a new head the timer.
	 * @param topic the job's topic
	 * @param bucket the bucket
	 * @param state the job's state now
	 * @param dueMillis its due time by Redis's clock
	 * @param head whether it became the earliest of the bucket's delay queue
	 */
	void written(String topic, int bucket, JobState state, long dueMillis, boolean head) {
		if (state == JobState.READY) {
			ready(topic, bucket);
		}
		else if (head) {
			head(bucket, dueMillis);
		}
	}

	/**
	 * A recurring job's tick became the earliest of a bucket's recurring jobs: the timer wakes
	 * for it when it runs the bucket.
	 * @param bucket the bucket
	 * @param tickMillis the tick by Redis's clock
	 */
	void recurringTick(int bucket, long tickMillis) {
		this.timer.onRecurringTick(bucket, tickMillis);
	}

	/**
	 * Jobs of any topic may have become READY in a bucket, and its timer events may have
	 * changed (a repair put jobs back into their indexes).
	 * @param bucket the bucket
	 */
	void bucketChanged(int bucket) {
		this.signals.markBucket(bucket);
		this.timer.recheckAll();
	}

	/**
	 * An instance joined or left: the shares of the bucket timers are renewed at once.
	 */
	void instancesChanged() {
		this.timer.coordinateSoon();
	}

	/**
	 * The channel was (re)subscribed: whatever was published while nobody listened is lost,
	 * so every bucket of every topic is looked at again and the shares renewed.
	 */
	void resubscribed() {
		this.signals.markAll();
		this.timer.recheckAll();
		this.timer.coordinateSoon();
	}

}
