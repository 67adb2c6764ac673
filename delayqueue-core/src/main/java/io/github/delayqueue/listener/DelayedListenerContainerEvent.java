package io.github.delayqueue.listener;

import org.springframework.context.ApplicationEvent;

/**
 * What happened to a listener container, published as an application event on the thread
 * that made it happen; what an event listener throws is logged and changes nothing.
 */
public abstract class DelayedListenerContainerEvent extends ApplicationEvent {

	/** Create the event of a container. */
	protected DelayedListenerContainerEvent(DelayedListenerContainer container) {
		super(container);
	}

	/** Return the container. */
	public DelayedListenerContainer getContainer() {
		return (DelayedListenerContainer) getSource();
	}

	/** Return the listener's id (the container's). */
	public String getListenerId() {
		return getContainer().getId();
	}

	/** Return the topic the listener consumes. */
	public String getTopic() {
		return getContainer().getTopic();
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[listener=" + getListenerId() + ", topic=" + getTopic() + "]";
	}

}
