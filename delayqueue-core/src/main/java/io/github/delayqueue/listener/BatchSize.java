package io.github.delayqueue.listener;

import java.util.concurrent.TimeUnit;

/**
 * How many jobs a handler thread takes next: as many as its handlers run, on average,
 * within {@value #BUDGET_MILLIS} ms (at least one, at most {@value #MAX_BATCH}). Fast handlers
 * get batches, so that a round trip to Redis serves many jobs; a slow handler never holds
 * jobs that another thread could be running. The average is a moving one over the run times
 * of a container's handlers; it starts at the budget, so the first batches are single jobs.
 * Thread-safe.
 */
final class BatchSize {

	/** The most jobs a handler thread takes at once. */
	static final int MAX_BATCH = 32;

	/** How long, on average, the handlers of one batch may run together. */
	static final int BUDGET_MILLIS = 2;

	private static final long BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(BUDGET_MILLIS);

	private volatile long averageHandlerNanos = BUDGET_NANOS;

	/**
	 * The size of the next batch.
	 * @return between 1 and {@value #MAX_BATCH}
	 */
	int next() {
		long average = Math.max(1, this.averageHandlerNanos);
		return (int) Math.max(1, Math.min(MAX_BATCH, BUDGET_NANOS / average));
	}

	/**
	 * Takes a handler's run time into the average.
	 * @param handlerNanos how long the handler ran
	 */
	void learn(long handlerNanos) {
		long average = this.averageHandlerNanos;
		this.averageHandlerNanos = average + (handlerNanos - average) / 8;
	}

}
