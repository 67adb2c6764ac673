package io.github.delayqueue.core;

/**
 * What scheduling does when a job with the same topic and id already exists. The check and
 * the write are one atomic step in Redis.
 */
public enum OnDuplicate {

	/** Keep the existing job untouched and report that nothing was created (the default). */
	KEEP,

	/** Replace the existing job, whatever its state; a consumer holding the old one is fenced off. */
	REPLACE

}
