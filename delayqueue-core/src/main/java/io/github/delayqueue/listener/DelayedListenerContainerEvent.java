package io.github.delayqueue.listener;

import org.springframework.context.ApplicationEvent;

/**
 * What happened to a listener container, published as an application event on the thread
 * that made it happen; what an event listener throws is logged and changes nothing.
 */
public abstract class DelayedListenerContainerEvent extends ApplicationEvent {

	/**
	 * Create an event.
	 * @param container the container
	 */
	protected DelayedListenerContainerEvent(DelayedListenerContainer container) {
		super(container);
	}

	/**
	 * Return the container.
	 * @return the container
	 */
	public DelayedListenerContainer getContainer() {
		return (DelayedListenerContainer) getSource();
	}

	/**
	 * Return the listener's id (the container's).
	 * @return the id
	 */
	public String getListenerId() {
		return getContainer().getId();
	}

	/**
	 * Return the topic the listener consumes.
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
