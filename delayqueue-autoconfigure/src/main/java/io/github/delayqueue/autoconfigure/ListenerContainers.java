package io.github.delayqueue.autoconfigure;

import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.redis.TimerStatus;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

/**
 * What the Actuator support reads of the application: its listener containers, looked up
 * on each call (the registry fills up as the context starts), and this instance's timer.
 */
final class ListenerContainers {

	private ListenerContainers() {
	}

	static Supplier<Collection<DelayedListenerContainer>> of(ObjectProvider<DelayedListenerEndpointRegistry> registry) {
		return () -> {
			DelayedListenerEndpointRegistry available = registry.getIfAvailable();
			return (available != null) ? available.getListenerContainers() : List.of();
		};
	}

	static @Nullable TimerStatus timer(ObjectProvider<RedisDelayQueue> queue) {
		RedisDelayQueue available = queue.getIfAvailable();
		return (available != null) ? available.getTimer() : null;
	}

	static @Nullable String instanceId(ObjectProvider<RedisDelayQueue> queue) {
		RedisDelayQueue available = queue.getIfAvailable();
		return (available != null) ? available.getInstanceId() : null;
	}

}
