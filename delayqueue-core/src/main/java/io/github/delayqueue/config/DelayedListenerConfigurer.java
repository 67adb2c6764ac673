package io.github.delayqueue.config;

/**
 * Callback for beans that register endpoints programmatically or change the default
 * container factory before the containers are created.
 */
@FunctionalInterface
public interface DelayedListenerConfigurer {

	/** Configures the registrar. */
	void configureDelayedListeners(DelayedListenerEndpointRegistrar registrar);

}
