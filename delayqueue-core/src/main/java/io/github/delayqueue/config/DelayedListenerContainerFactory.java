package io.github.delayqueue.config;

import io.github.delayqueue.listener.DelayedListenerContainer;

/**
 * Creates the container of an endpoint.
 */
@FunctionalInterface
public interface DelayedListenerContainerFactory {

	/**
	 * Creates a container; it is not started.
	 * @param endpoint the endpoint
	 * @return the container
	 * @throws InvalidDelayedListenerException when the endpoint cannot be run, with a message
	 * naming it and the fix
	 */
	DelayedListenerContainer createContainer(DelayedListenerEndpoint endpoint);

}
