package io.github.delayqueue.recurring;

/**
 * What a recurring job does with ticks that came while no instance could fire them (every
 * instance down, Redis unreachable): ticks older than the definition's misfire threshold when
 * they are fired at last.
 */
public enum MisfirePolicy {

	/**
	 * One occurrence, due now, for all the ticks that came since the definition last fired
	 * (named after the first of them); the default.
	 */
	FIRE_ONCE,

	/**
	 * No occurrence for the missed ticks: the schedule goes on with its next tick (ticks still
	 * within the threshold are fired, at most the definition's max catch-up of them).
	 */
	SKIP,

	/**
	 * One occurrence per missed tick, each due at its tick (so READY at once, in order), at most
	 * the definition's max catch-up of them: the most recent; older ones are skipped.
	 */
	FIRE_ALL

}
