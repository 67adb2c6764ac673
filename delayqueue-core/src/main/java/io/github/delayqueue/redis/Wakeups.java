package io.github.delayqueue.redis;

import io.github.delayqueue.core.JobState;

/**
 * Tells this instance's consumers ({@link ReadySignals}) and timer ({@link BucketTimer}) that a
 * bucket got work, from script replies and from the event channel. Every method is idempotent.
 * Thread-safe.
 */
final class Wakeups {

	private final ReadySignals signals;

	private final BucketTimer timer;

	Wakeups(ReadySignals signals, BucketTimer timer) {
		this.signals = signals;
		this.timer = timer;
	}

	/** A ready list of a topic got jobs. */
	void ready(String topic, int bucket) {
		this.signals.markReady(topic, bucket);
	}

	/** A job or a TTR deadline became the earliest event of a bucket. */
	void head(int bucket, long dueMillis) {
		this.timer.onHead(bucket, dueMillis);
	}

	/** A job was written: READY wakes its consumers, a new head the timer. */
	void written(String topic, int bucket, JobState state, long dueMillis, boolean head) {
		if (state == JobState.READY) {
			ready(topic, bucket);
		}
		else if (head) {
			head(bucket, dueMillis);
		}
	}

	/** A recurring tick became the earliest of a bucket's recurring jobs. */
	void recurringTick(int bucket, long tickMillis) {
		this.timer.onRecurringTick(bucket, tickMillis);
	}

	/** Any topic of a bucket may have READY jobs, and its timer events may have changed (a repair). */
	void bucketChanged(int bucket) {
		this.signals.markBucket(bucket);
		this.timer.recheckAll();
	}

	/** An instance joined or left. */
	void instancesChanged() {
		this.timer.coordinateSoon();
	}

	/** The channel was (re)subscribed: what was published meanwhile is lost. */
	void resubscribed() {
		this.signals.markAll();
		this.timer.recheckAll();
		this.timer.coordinateSoon();
	}

}
