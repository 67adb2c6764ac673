/**
 * The Redis implementation of the queue,
 * {@link io.github.delayqueue.redis.RedisDelayQueue}, and its parts.
 */
@NullMarked
package io.github.delayqueue.redis;

import org.jspecify.annotations.NullMarked;
