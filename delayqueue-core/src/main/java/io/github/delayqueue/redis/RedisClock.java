package io.github.delayqueue.redis;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * An estimate of Redis's clock: the {@code TIME} of the last reply plus the time elapsed since
 * on a monotonic clock. It only decides how long the timer sleeps. Thread-safe.
 */
final class RedisClock {

	private final LongSupplier nanoTime;

	private volatile Reading reading;

	/** Uses {@code nanoTime}, a monotonic clock of any origin, to measure elapsed time. */
	RedisClock(LongSupplier nanoTime) {
		this.nanoTime = nanoTime;
		// the local time until Redis answers
		this.reading = new Reading(System.currentTimeMillis(), nanoTime.getAsLong());
	}

	/** Records Redis's time as just read from a reply. */
	void update(long redisMillis) {
		this.reading = new Reading(redisMillis, this.nanoTime.getAsLong());
	}

	/** The estimate of Redis's time now, in epoch milliseconds. */
	long millis() {
		Reading last = this.reading;
		return last.redisMillis() + TimeUnit.NANOSECONDS.toMillis(this.nanoTime.getAsLong() - last.nanoTime());
	}

	private record Reading(long redisMillis, long nanoTime) {

	}

}
