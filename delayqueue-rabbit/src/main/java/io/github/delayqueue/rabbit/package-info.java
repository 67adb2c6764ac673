/**
 * Forwarding of due jobs into RabbitMQ, and scheduling of RabbitMQ messages for later
 * ({@link io.github.delayqueue.rabbit.DelayedRabbit}).
 */
@NullMarked
package io.github.delayqueue.rabbit;

import org.jspecify.annotations.NullMarked;
