package io.github.delayqueue.listener;

import java.util.concurrent.TimeUnit;

/**
 * How many jobs a handler thread takes next: as many as its handlers run, on a moving
 * average, within {@value #BUDGET_MILLIS} ms (1 to {@value #MAX_BATCH}). Thread-safe.
 */
final class BatchSize {

	/** The most jobs a handler thread takes at once. */
	static final int MAX_BATCH = 32;

	/** How long, on average, the handlers of one batch may run together. */
	static final int BUDGET_MILLIS = 2;

	private static final long BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(BUDGET_MILLIS);

	private volatile long averageHandlerNanos = BUDGET_NANOS;

	/** The size of the next batch. */
	int next() {
		long average = Math.max(1, this.averageHandlerNanos);
		return (int) Math.max(1, Math.min(MAX_BATCH, BUDGET_NANOS / average));
	}

	/** Takes a handler's run time into the average. */
	void learn(long handlerNanos) {
		long average = this.averageHandlerNanos;
		this.averageHandlerNanos = average + (handlerNanos - average) / 8;
	}

}
