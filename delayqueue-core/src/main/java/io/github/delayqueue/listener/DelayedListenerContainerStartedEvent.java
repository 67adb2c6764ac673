package io.github.delayqueue.listener;

/** A listener container was started: its consumer thread runs. */
public class DelayedListenerContainerStartedEvent extends DelayedListenerContainerEvent {

	/**
	 * Create an event.
	 * @param container the container
	 */
	public DelayedListenerContainerStartedEvent(DelayedListenerContainer container) {
		super(container);
	}

}
