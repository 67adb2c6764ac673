package io.github.delayqueue.redis;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;

/**
 * A warning that repeats while its cause lasts (a Redis that refuses a follow-up call, late
 * takes), logged at WARN at most once a minute and at DEBUG otherwise, so that a log shows the
 * cause without a line per job. Thread-safe.
 */
final class OnceAMinute {

	private static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final Log logger;

	private final AtomicLong lastWarned = new AtomicLong();

	OnceAMinute(Log logger) {
		this.logger = logger;
	}

	/**
	 * Logs a message: at WARN when none was in the last minute, else at DEBUG.
	 * @param message the message
	 */
	void warn(String message) {
		long now = System.nanoTime();
		long last = this.lastWarned.get();
		if ((last == 0 || now - last > INTERVAL_NANOS) && this.lastWarned.compareAndSet(last, now)) {
			this.logger.warn(message);
		}
		else {
			this.logger.debug(message);
		}
	}

}
