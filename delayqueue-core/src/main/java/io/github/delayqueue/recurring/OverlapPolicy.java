package io.github.delayqueue.recurring;

/**
 * What a tick does when the recurring job's previous occurrence still exists: waiting to be
 * taken, running, or waiting for a retry (a DEAD occurrence no longer counts).
 */
public enum OverlapPolicy {

	/** Create the tick's occurrence anyway (the default): occurrences may run side by side. */
	ALLOW,

	/**
	 * Skip the tick, counted as skipped, while the previous occurrence exists; a catch-up then
	 * creates only the newest of its ticks. At most one occurrence of the schedule exists at a
	 * time ({@link RecurringJobs#trigger} creates one regardless).
	 */
	SKIP

}
