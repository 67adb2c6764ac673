package io.github.delayqueue.core;

/**
 * All of the delay queue's operations on serialized payloads: the
 * {@linkplain DelayQueueProducer producer}, {@linkplain DelayQueueConsumer consumer} and
 * {@linkplain DelayQueueAdmin admin} sides in one type.
 */
public interface DelayQueueOperations extends DelayQueueProducer, DelayQueueConsumer, DelayQueueAdmin {

}
