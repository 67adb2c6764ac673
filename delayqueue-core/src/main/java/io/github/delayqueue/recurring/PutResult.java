package io.github.delayqueue.recurring;

/**
 * What {@link RecurringJobs#put} did.
 */
public enum PutResult {

	/** The definition was created. */
	CREATED,

	/** The definition changed, from the schedule's next tick. */
	UPDATED,

	/** The definition was the same: nothing changed. */
	UNCHANGED

}
