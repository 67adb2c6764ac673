package io.github.delayqueue.autoconfigure;

import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.redis.RedisDelayQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Lookups of the listener containers (on each call) and the instance id.
 */
public final class ListenerContainers {

	private ListenerContainers() {
	}

	/**
	 * The application's listener containers, read on each call.
	 * @param registry the registry, when there is one
	 * @return the containers
	 */
	public static Supplier<Collection<DelayedListenerContainer>> of(ObjectProvider<DelayedListenerEndpointRegistry> registry) {
		return () -> {
			DelayedListenerEndpointRegistry available = registry.getIfAvailable();
			return (available != null) ? available.getListenerContainers() : List.of();
		};
	}

	/**
	 * This instance's id.
	 * @param queue the queue, when there is one
	 * @return its instance id, or {@code null}
	 */
	public static @Nullable String instanceId(ObjectProvider<RedisDelayQueue> queue) {
		RedisDelayQueue available = queue.getIfAvailable();
		return (available != null) ? available.getInstanceId() : null;
	}

}
