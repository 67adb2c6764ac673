package io.github.delayqueue.listener;

/**
 * A listener container was stopped: its handlers have ended (or the shutdown timeout passed)
 * and the jobs it held unstarted are given back.
 */
public class DelayedListenerContainerStoppedEvent extends DelayedListenerContainerEvent {

	/** Create the event of a container. */
	public DelayedListenerContainerStoppedEvent(DelayedListenerContainer container) {
		super(container);
	}

}
