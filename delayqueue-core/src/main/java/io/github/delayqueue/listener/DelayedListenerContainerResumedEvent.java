package io.github.delayqueue.listener;

/** A listener container was resumed after a pause. */
public class DelayedListenerContainerResumedEvent extends DelayedListenerContainerEvent {

	/** Create the event of a container. */
	public DelayedListenerContainerResumedEvent(DelayedListenerContainer container) {
		super(container);
	}

}
