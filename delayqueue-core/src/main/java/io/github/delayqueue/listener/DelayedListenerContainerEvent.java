package io.github.delayqueue.listener;

import org.springframework.context.ApplicationEvent;

/**
 * What happened to a listener container, published as a Spring application event (receive it
 * with {@code @EventListener}), as Spring Kafka publishes its container events: started,
 * stopped, paused, resumed, idle, and, when enabled, each job's outcome. Events are published
 * in the instance where it happened, on the thread that made it happen (the caller of
 * {@code start}, {@code stop}, {@code pause}, {@code resume}; the consumer thread for idle;
 * the handler thread for a job's outcome), so a slow event listener slows that thread. What a
 * listener throws is logged and changes nothing. The events of calls made at the same time may
 * arrive in either order. Stopping the container from an event listener on its own threads
 * returns at once and stops it in the background
 * ({@link DelayedListenerContainer#stop(Runnable)}).
 */
public abstract class DelayedListenerContainerEvent extends ApplicationEvent {

	/**
	 * Creates an event.
	 * @param container the container
	 */
	protected DelayedListenerContainerEvent(DelayedListenerContainer container) {
		super(container);
	}

	/**
	 * The container.
	 * @return the container
	 */
	public DelayedListenerContainer getContainer() {
		return (DelayedListenerContainer) getSource();
	}

	/**
	 * The listener's id (the container's).
	 * @return the id
	 */
	public String getListenerId() {
		return getContainer().getId();
	}

	/**
	 * The topic the listener consumes.
	 * @return the topic
	 */
	public String getTopic() {
		return getContainer().getTopic();
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[listener=" + getListenerId() + ", topic=" + getTopic() + "]";
	}

}
