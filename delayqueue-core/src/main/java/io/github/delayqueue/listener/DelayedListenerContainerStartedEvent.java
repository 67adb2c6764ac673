package io.github.delayqueue.listener;

/** A listener container was started: its consumer thread runs. */
public class DelayedListenerContainerStartedEvent extends DelayedListenerContainerEvent {

	/** Create the event of a container. */
	public DelayedListenerContainerStartedEvent(DelayedListenerContainer container) {
		super(container);
	}

}
