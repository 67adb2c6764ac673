package io.github.delayqueue.recurring;

/**
 * What a tick does while the recurring job's previous occurrence is still in the queue (not DEAD).
 */
public enum OverlapPolicy {

	/** Create the tick's occurrence anyway; the default. */
	ALLOW,

	/** Skip the tick, counted as skipped; a catch-up creates only its newest tick. */
	SKIP

}
