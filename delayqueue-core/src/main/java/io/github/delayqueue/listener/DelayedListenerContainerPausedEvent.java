package io.github.delayqueue.listener;

/** A listener container was paused: it takes no new jobs until resumed. */
public class DelayedListenerContainerPausedEvent extends DelayedListenerContainerEvent {

	/** Create the event of a container. */
	public DelayedListenerContainerPausedEvent(DelayedListenerContainer container) {
		super(container);
	}

}
