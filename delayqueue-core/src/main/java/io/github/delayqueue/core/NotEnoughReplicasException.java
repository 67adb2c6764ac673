package io.github.delayqueue.core;

/**
 * A write is on the master, but fewer replicas than {@code delayqueue.redis.wait-replicas} asked
 * for acknowledged it within {@code delayqueue.redis.wait-timeout}: it may be lost if the master
 * fails over before they get it. The message says what running it again does where that is not
 * simply "applied once".
 */
public class NotEnoughReplicasException extends DelayQueueException {

	/** Creates the exception with what was written and how many replicas acknowledged it. */
	public NotEnoughReplicasException(String message) {
		super(message);
	}

	/** Creates the exception with what was written and the underlying failure. */
	public NotEnoughReplicasException(String message, Throwable cause) {
		super(message, cause);
	}

}
