package io.github.delayqueue.config;

import io.github.delayqueue.listener.DelayedListenerContainer;

/**
 * Creates the container of an endpoint.
 */
@FunctionalInterface
public interface DelayedListenerContainerFactory {

	/**
	 * Create a container; it is not started.
	 * @param endpoint the endpoint
	 * @return the container
	 * @throws InvalidDelayedListenerException when the endpoint cannot be run
	 */
	DelayedListenerContainer createContainer(DelayedListenerEndpoint endpoint);

}
