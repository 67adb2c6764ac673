package io.github.delayqueue.redis;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * An estimate of Redis's clock between replies. Every script reply carries Redis's
 * {@code TIME}; in between, the estimate advances by the time elapsed on a monotonic clock
 * ({@link System#nanoTime()} by default). The system's wall clock is never read once Redis
 * has answered, so a local clock that is minutes off, or that steps backwards or forwards
 * (an NTP correction, a suspended virtual machine), changes nothing. The estimate only
 * decides how long the timer sleeps: whether a job is due is always decided by a script, by
 * Redis's own clock. Thread-safe.
 */
final class RedisClock {

	private final LongSupplier nanoTime;

	private volatile Reading reading;

	private volatile boolean synced;

	/**
	 * Creates an estimate that measures elapsed time with {@link System#nanoTime()}.
	 */
	RedisClock() {
		this(System::nanoTime);
	}

	/**
	 * Creates an estimate that measures elapsed time with the given monotonic clock.
	 * @param nanoTime a monotonic clock in nanoseconds with an arbitrary origin, like
	 * {@link System#nanoTime()}; only differences of its readings are used
	 */
	RedisClock(LongSupplier nanoTime) {
		this.nanoTime = nanoTime;
		// until Redis answers, the estimate starts from the local time
		this.reading = new Reading(System.currentTimeMillis(), nanoTime.getAsLong());
	}

	/**
	 * Records Redis's time as just read from a reply.
	 * @param redisMillis Redis's time in epoch milliseconds
	 */
	void update(long redisMillis) {
		this.reading = new Reading(redisMillis, this.nanoTime.getAsLong());
		this.synced = true;
	}

	/**
	 * The estimate of Redis's time now: its time at the last reply plus the time elapsed
	 * since on the monotonic clock.
	 * @return epoch milliseconds by Redis's clock
	 */
	long millis() {
		Reading last = this.reading;
		// a difference of nano times is right even when the clock wraps around
		return last.redisMillis() + TimeUnit.NANOSECONDS.toMillis(this.nanoTime.getAsLong() - last.nanoTime());
	}

	/**
	 * Whether Redis's time has been read at least once.
	 * @return {@code true} after the first {@link #update}
	 */
	boolean isSynced() {
		return this.synced;
	}

	/**
	 * Redis's time and the monotonic clock's reading at the same moment.
	 */
	private record Reading(long redisMillis, long nanoTime) {

	}

}
