package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.redis.RedisDelayQueueBuilder;

/**
 * Callback to customize the auto-configured {@link RedisDelayQueue} beyond its properties,
 * applied after the properties in {@link org.springframework.core.Ordered order}.
 */
@FunctionalInterface
public interface DelayQueueBuilderCustomizer {

	/**
	 * Customizes the builder.
	 * @param builder the builder, with the properties already applied
	 */
	void customize(RedisDelayQueueBuilder builder);

}
