package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The oldest supported Redis (6.2, the embedded binary) and the Jedis driver.
 */
class CompatibilityTests {

	@Test
	void fullLifecycleOnRedis62() throws Exception {
		try (RedisTestServer redis = RedisTestServers.local().embedded().start();
				RedisQueues queues = new RedisQueues(redis)) {
			assertLifecycle(queues.start());
			assertThat(RedisStats.majorVersion(queues.connectionFactory())).isEqualTo(6);
		}
	}

	@Test
	void fullLifecycleWithJedis() throws Exception {
		try (RedisTestServer redis = RedisTestServers.local().start()) {
			JedisConnectionFactory factory = new JedisConnectionFactory(
					new RedisStandaloneConfiguration(redis.host(), redis.port()));
			factory.afterPropertiesSet();
			factory.start();
			RedisDelayQueue queue = RedisDelayQueue.builder(factory).namespace("jedis").build();
			try {
				queue.start();
				assertLifecycle(queue);
				// a new namespace on one server, its count read through Jedis
				assertThat(queue.stats().buckets()).hasSize(1);
			}
			finally {
				queue.stop();
				factory.destroy();
			}
		}
	}

	private static void assertLifecycle(RedisDelayQueue queue) throws InterruptedException {
		for (int i = 0; i < 20; i++) {
			queue.schedule(request("compat", "job-" + i, "{\"i\":" + i + "}", Duration.ofMillis(200)));
		}
		try (Consumer consumer = new Consumer(queue, "compat", 2, 5)) {
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(consumer.distinct()).isEqualTo(20));
			assertThat(consumer.errors).isEmpty();
		}
		queue.schedule(request("compat", "retry", "x", Duration.ZERO));
		List<ReservedJob> jobs = queue.reserve("compat", 1, null);
		assertThat(jobs).hasSize(1);
		queue.fail(jobs.get(0), Duration.ofMillis(100), "boom");
		ReservedJob again = await().atMost(Duration.ofSeconds(5))
			.until(() -> queue.reserve("compat", 1, null), (list) -> !list.isEmpty())
			.get(0);
		assertThat(again.attempt()).isEqualTo(2);
		assertThat(queue.finish(again)).isTrue();
		assertThat(queue.stats().totals().total()).isZero();
	}

}
