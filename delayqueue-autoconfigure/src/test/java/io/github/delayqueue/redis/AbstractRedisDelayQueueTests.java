package io.github.delayqueue.redis;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tests of one queue on the shared test server: {@link #queue} is started, with
 * {@link RedisQueues}' test timings and a namespace of its own, before each test; after each
 * test {@link #queues} stops it and checks the queue's invariant on that namespace.
 */
abstract class AbstractRedisDelayQueueTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	RedisDelayQueue queue;

	@BeforeEach
	void startQueue() {
		this.queue = this.queues.start();
	}

}
