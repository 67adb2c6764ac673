/**
 * Forwarding of due jobs into Kafka and RabbitMQ, and scheduling of broker messages for
 * later ({@link io.github.delayqueue.forward.DelayedKafka},
 * {@link io.github.delayqueue.forward.DelayedRabbit}).
 */
@NullMarked
package io.github.delayqueue.forward;

import org.jspecify.annotations.NullMarked;
