package io.github.delayqueue.core;

/**
 * What failing a reserved job did.
 */
public enum FailResult {

	/** The job will be delivered again after the back-off. */
	RETRYING,

	/** The job is DEAD: its attempts are used up, or the failure was final. */
	DEAD,

	/** Nothing: the reservation is no longer the caller's. */
	STALE

}
