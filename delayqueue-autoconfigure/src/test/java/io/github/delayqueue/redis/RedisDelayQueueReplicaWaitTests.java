package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code waitReplicas}: a schedule or finish that does not reach the replicas asked for in
 * time is an error that says what happened (the fail-over case is in RedisSentinelTests).
 */
class RedisDelayQueueReplicaWaitTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	@Test
	void withoutTheReplicasAskedForAScheduleIsNotAcknowledged() {
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.waitReplicas(1).waitTimeout(Duration.ofMillis(100)));
		assertRefused(queue);
	}

	@Test
	void jedisWaitsForReplicasOnItsOwnConnection() {
		withJedis(false, (queue) -> assertRefused(queue));
	}

	@Test
	void jedisWithAPooledClientIsToldToUseOneConnectionPerOperation() {
		withJedis(true, (queue) -> assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> queue.schedule(request("acked", "u", "x", Duration.ofHours(1))))
			.withMessageContaining("setUseUnifiedJedis(false)"));
	}

	private void withJedis(boolean unified, java.util.function.Consumer<RedisDelayQueue> test) {
		RedisTestServer redis = RedisTestServers.shared();
		JedisConnectionFactory factory = new JedisConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		factory.setUseUnifiedJedis(unified);
		factory.afterPropertiesSet();
		factory.start();
		RedisDelayQueue queue = RedisDelayQueue.builder(factory)
			.namespace(this.queues.namespace + "-jedis-" + unified)
			.waitReplicas(1)
			.waitTimeout(Duration.ofMillis(100))
			.build();
		try {
			queue.start();
			test.accept(queue);
		}
		finally {
			queue.stop();
			factory.destroy();
		}
	}

	private static void assertRefused(RedisDelayQueue queue) {
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> queue.schedule(request("acked", "a", "x", Duration.ofHours(1))))
			.withMessageContaining("reached 0 of the 1 replicas")
			.withMessageContaining("delayqueue.redis.wait-replicas")
			.withMessageContaining("running it again is safe");
		// the write itself is on the master
		assertThat(queue.find("acked", "a")).isPresent();
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> queue.scheduleAll(List.of(request("acked", "b", "x", Duration.ofHours(1)))));
		// reads do not wait
		assertThat(queue.stats().topics().get("acked").delayed()).isEqualTo(2);
	}

	@Test
	void aNegativeReplicaCountIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queues.create((builder) -> builder.waitReplicas(-1)))
			.withMessage("waitReplicas must not be negative, was -1");
	}

}
