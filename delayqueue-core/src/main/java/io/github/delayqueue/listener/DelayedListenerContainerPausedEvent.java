package io.github.delayqueue.listener;

/** A listener container was paused: it takes no new jobs until resumed. */
public class DelayedListenerContainerPausedEvent extends DelayedListenerContainerEvent {

	/**
	 * Create an event.
	 * @param container the container
	 */
	public DelayedListenerContainerPausedEvent(DelayedListenerContainer container) {
		super(container);
	}

}
