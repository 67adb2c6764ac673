/**
 * Forwarding of due jobs into Kafka, and scheduling of Kafka records for later
 * ({@link io.github.delayqueue.kafka.DelayedKafka}).
 */
@NullMarked
package io.github.delayqueue.kafka;

import org.jspecify.annotations.NullMarked;
