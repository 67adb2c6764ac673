package io.github.delayqueue.recurring;

/**
 * What a recurring job does with ticks that came while no instance could fire them (every
 * instance down, Redis unreachable): ticks older than the definition's misfire threshold when
 * they are fired at last.
 */
public enum MisfirePolicy {

	/** One occurrence now for all the missed ticks (the most recent of them); the default. */
	FIRE_ONCE,

	/** No occurrence for the missed ticks: the schedule goes on with its next tick. */
	SKIP,

	/**
	 * One occurrence per missed tick, all due now, at most the definition's max catch-up of
	 * them; older ones beyond that are skipped.
	 */
	FIRE_ALL

}
