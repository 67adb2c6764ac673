package io.github.delayqueue.redis;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * This instance's heartbeat and its share of the buckets, for the {@link BucketTimer}: a full
 * coordination each full interval or when asked, else a renewal each interval. Timer thread only.
 */
final class Heartbeat {

	private static final Log logger = LogFactory.getLog(Heartbeat.class);

	/** How long {@link #leave()} waits for Redis to take the buckets back. */
	private static final long LEAVE_TIMEOUT_MILLIS = 2_000;

	private final TimerBackend backend;

	private final long intervalNanos;

	private final long fullIntervalNanos;

	private final Runnable dataLostListener;

	/** Redis's clock as read by the timer's calls alone, from which expiries are written. */
	private final RedisClock clock = new RedisClock(System::nanoTime);

	private boolean forceFull = true;

	private long next;

	private long nextFull;

	private long nextExpiryCheck;

	private String epoch = "";

	/** {@code dataLostListener} is told when a coordination finds the namespace's epoch changed. */
	Heartbeat(TimerBackend backend, Duration interval, Duration fullInterval, Runnable dataLostListener) {
		this.backend = backend;
		this.intervalNanos = interval.toNanos();
		this.fullIntervalNanos = fullInterval.toNanos();
		this.dataLostListener = dataLostListener;
	}

	/** When the next beat is due, by {@link System#nanoTime()}. */
	long next() {
		return this.next;
	}

	/** Records Redis's time read by a timer call. */
	void synced(long redisMillis) {
		this.clock.update(redisMillis);
	}

	/**
	 * Beats when due or {@code now}; returns the coordination when one ran, {@code null} when
	 * the heartbeat was only renewed or not due.
	 */
	TimerBackend.@Nullable Coordination beat(long monotonic, boolean now) {
		this.forceFull |= now;
		if (!now && monotonic - this.next < 0) {
			return null;
		}
		boolean full = this.forceFull || monotonic - this.nextFull >= 0;
		TimerBackend.Coordination coordination = full ? coordinate() : renew();
		this.forceFull = false;
		this.next = monotonic + this.intervalNanos;
		if (full) {
			this.nextFull = monotonic + this.fullIntervalNanos;
		}
		return coordination;
	}

	private TimerBackend.@Nullable Coordination renew() {
		long now = this.clock.millis();
		long earliest = this.backend.renew(now, now >= this.nextExpiryCheck);
		if (earliest < 0) {
			return coordinate();
		}
		if (earliest > 0) {
			this.nextExpiryCheck = earliest;
		}
		return null;
	}

	private TimerBackend.Coordination coordinate() {
		this.nextExpiryCheck = 0;
		TimerBackend.Coordination coordination = this.backend.coordinate(false);
		synced(coordination.redisMillis());
		String before = this.epoch;
		this.epoch = coordination.epoch();
		if (!before.isEmpty() && !before.equals(this.epoch)) {
			this.dataLostListener.run();
		}
		return coordination;
	}

	/** Gives up this instance's buckets, waiting for Redis at most {@value #LEAVE_TIMEOUT_MILLIS} ms. */
	void leave() {
		Thread leaver = new Thread(() -> {
			try {
				this.backend.coordinate(true);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not give up bucket timers on stop (others take over when the heartbeat expires): "
						+ ex.getMessage());
			}
		}, "delayqueue-timer-leave");
		leaver.setDaemon(true);
		leaver.start();
		try {
			leaver.join(LEAVE_TIMEOUT_MILLIS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return;
		}
		if (leaver.isAlive()) {
			logger.warn("Redis did not answer within " + LEAVE_TIMEOUT_MILLIS + " ms while giving up bucket timers "
					+ "on stop; others take over when the heartbeat expires");
		}
	}

}
