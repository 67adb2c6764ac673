package io.github.delayqueue.scheduler;

import java.time.Clock;

/**
 * An estimate of Redis's clock between replies. Every script reply carries Redis's
 * {@code TIME}; in between, the estimate advances by the time elapsed on the local
 * {@link Clock}. Only differences of local readings are used, so a local clock that is
 * minutes off does not matter; the estimate only decides how long to sleep: whether a job is
 * due is always decided by a script, by Redis's own clock.
 */
public final class RedisClock {

	private final Clock clock;

	private volatile long offset;

	private volatile boolean synced;

	public RedisClock(Clock clock) {
		this.clock = clock;
	}

	/**
	 * Records Redis's time as just read from a reply.
	 * @param redisMillis Redis's time in epoch milliseconds
	 */
	public void update(long redisMillis) {
		this.offset = redisMillis - this.clock.millis();
		this.synced = true;
	}

	/**
	 * The estimate of Redis's time now.
	 * @return epoch milliseconds by Redis's clock
	 */
	public long millis() {
		return this.clock.millis() + this.offset;
	}

	public boolean isSynced() {
		return this.synced;
	}

}
