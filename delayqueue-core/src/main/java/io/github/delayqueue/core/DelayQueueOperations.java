package io.github.delayqueue.core;

/**
 * All of the delay queue's operations on serialized payloads: the
 * {@linkplain DelayQueueProducer producer}, {@linkplain DelayQueueConsumer consumer} and
 * {@linkplain DelayQueueAdmin admin} sides in one type. What an application injects to use
 * the queue directly; code that needs one side only takes that side's interface.
 *
 * <p>
 * Every operation but {@link #awaitWork} is one atomic step in Redis, timed by Redis's clock.
 * Arguments are checked first ({@link JobConstraints}): a broken rule throws
 * {@link IllegalArgumentException} and changes nothing. When Redis cannot be reached a
 * {@link DelayQueueConnectionException} is thrown. Implementations are thread-safe.
 *
 * <p>
 * Consumers follow the at-least-once contract: {@link #reserve} hands out jobs with a fencing
 * token; each must be {@link #finish finished}, {@link #fail failed} or
 * {@link #release released} before its TTR runs out, else it is delivered again (with the
 * attempt counted) and the old token is refused.
 */
public interface DelayQueueOperations extends DelayQueueProducer, DelayQueueConsumer, DelayQueueAdmin {

}
