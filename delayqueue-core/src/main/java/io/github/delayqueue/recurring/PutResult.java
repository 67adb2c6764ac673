package io.github.delayqueue.recurring;

/**
 * What {@link RecurringJobs#put} did.
 */
public enum PutResult {

	/** No definition had the name: it was created, its first tick is the schedule's next. */
	CREATED,

	/** The definition changed: the new one takes effect from the schedule's next tick. */
	UPDATED,

	/** The definition was the same: nothing changed, not even its next tick. */
	UNCHANGED

}
