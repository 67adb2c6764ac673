package io.github.delayqueue.redis;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;

/**
 * A repeating warning, logged at WARN at most once a minute and at DEBUG otherwise. Thread-safe.
 */
final class OnceAMinute {

	private static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final Log logger;

	private final AtomicLong lastWarned = new AtomicLong();

	OnceAMinute(Log logger) {
		this.logger = logger;
	}

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
