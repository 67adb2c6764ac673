package io.github.delayqueue.listener;

import java.time.Duration;

/**
 * A running, unpaused listener container has had no job for its idle event interval;
 * published again after each further interval, on the consumer thread.
 */
public class DelayedListenerIdleEvent extends DelayedListenerContainerEvent {

	private final Duration idleTime;

	/**
	 * Create an event.
	 * @param container the container
	 * @param idleTime how long no job has come (since the last one, or the start)
	 */
	public DelayedListenerIdleEvent(DelayedListenerContainer container, Duration idleTime) {
		super(container);
		this.idleTime = idleTime;
	}

	/** Return how long no job has come. */
	public Duration getIdleTime() {
		return this.idleTime;
	}

}
