package io.github.delayqueue.core;

/**
 * What {@code reschedule} did.
 */
public enum RescheduleResult {

	/** The job waits for its new due time (or is READY when that time has passed). */
	RESCHEDULED,

	/** There is no job with that topic and id. */
	NOT_FOUND,

	/** The job is RESERVED or DEAD, and was left as it is. */
	NOT_WAITING,

	/** Asked in a Spring-managed transaction: the job is rescheduled after the commit. */
	AFTER_COMMIT

}
