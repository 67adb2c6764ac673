package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.scheduler.BucketTimer;
import io.github.delayqueue.scheduler.RedisClock;
import io.github.delayqueue.scheduler.TimerBackend;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Health goes DOWN while the bucket timer's loop is stuck, and UP once it moves again. The
 * timer runs on a backend whose promote step blocks (a pure unit stand-in for a hung Redis
 * call); the figures come from real Redis.
 */
class DelayQueueHealthIndicatorTimerTests {

	@Test
	void downWhileTheTimerLoopIsStuck() throws InterruptedException {
		CountDownLatch stuck = new CountDownLatch(1);
		CountDownLatch entered = new CountDownLatch(1);
		TimerBackend hanging = new TimerBackend() {

			@Override
			public Coordination coordinate(boolean leaving, boolean renewOnly) {
				return new Coordination(1, System.currentTimeMillis(), leaving ? new int[0] : new int[] { 0 });
			}

			@Override
			public Promotion promote(int bucket, boolean guard) {
				entered.countDown();
				try {
					stuck.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return new Promotion(0, 0, -1, System.currentTimeMillis(), List.of());
			}

		};
		BucketTimer timer = new BucketTimer(hanging, 1, 100, Duration.ofMillis(100), Duration.ofSeconds(5),
				new RedisClock(), (topic, bucket) -> {
				});
		RedisTestServer redis = RedisTestServers.shared();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		factory.afterPropertiesSet();
		factory.start();
		try {
			RedisDelayQueue queue = RedisDelayQueue.builder(factory).namespace("hts" + System.nanoTime()).build();
			DelayQueueHealthIndicator health = new DelayQueueHealthIndicator(queue, timer, List::of,
					Duration.ofMinutes(1), Duration.ofMillis(300));
			timer.start();
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
				Health down = health.health();
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails().get("problems")).asString()
					.startsWith("[bucket timer made no progress for ");
			});
			stuck.countDown();
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(health.health().getStatus()).isEqualTo(Status.UP));
		}
		finally {
			stuck.countDown();
			timer.halt();
			factory.destroy();
		}
	}

}
