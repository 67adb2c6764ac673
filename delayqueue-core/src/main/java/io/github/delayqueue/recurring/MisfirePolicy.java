package io.github.delayqueue.recurring;

/**
 * What a recurring job does with missed ticks: those older than its misfire threshold when fired.
 */
public enum MisfirePolicy {

	/** One occurrence, due now, named after the first missed tick; the default. */
	FIRE_ONCE,

	/** No occurrence for the missed ticks; ticks still within the threshold fire. */
	SKIP,

	/** One occurrence per missed tick, due at its tick, for the most recent max catch-up of them. */
	FIRE_ALL

}
