package io.github.delayqueue.listener;

import java.time.Duration;

/**
 * A running, unpaused listener container has received no job for its idle event interval
 * ({@code delayqueue.listener.idle-event-interval}), as Spring Kafka's
 * {@code ListenerContainerIdleEvent}: published again after each further interval while no
 * job comes; a job that runs counts as activity. Published on the container's consumer
 * thread, which checks about once a second while it can reserve (not while Redis is out of
 * reach). Idleness is counted from the start, the last job, or the end of a pause.
 */
public class DelayedListenerIdleEvent extends DelayedListenerContainerEvent {

	private final Duration idleTime;

	/**
	 * Creates an event.
	 * @param container the container
	 * @param idleTime how long no job has come (since the last one, or the start)
	 */
	public DelayedListenerIdleEvent(DelayedListenerContainer container, Duration idleTime) {
		super(container);
		this.idleTime = idleTime;
	}

	/**
	 * How long no job has come: since the last one, or since the container started.
	 * @return the idle time
	 */
	public Duration getIdleTime() {
		return this.idleTime;
	}

	@Override
	public String toString() {
		return "DelayedListenerIdleEvent[listener=" + getListenerId() + ", topic=" + getTopic() + ", idleTime="
				+ this.idleTime + "]";
	}

}
