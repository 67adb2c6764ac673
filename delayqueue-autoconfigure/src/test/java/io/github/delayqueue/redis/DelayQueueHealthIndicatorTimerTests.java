package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.support.TestConnections;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Health goes DOWN while the bucket timer's loop is stuck or keeps failing, and UP once it
 * moves again. The timer runs on a backend whose promote step blocks or throws (a pure unit
 * stand-in for a hung Redis call or a broken step); Redis itself is real and answers.
 */
class DelayQueueHealthIndicatorTimerTests {

	private LettuceConnectionFactory factory;

	private BucketTimer timer;

	@BeforeEach
	void connect() {
		RedisTestServer redis = RedisTestServers.shared();
		this.factory = TestConnections.lettuce(redis, Duration.ofSeconds(5));
	}

	@AfterEach
	void close() {
		if (this.timer != null) {
			this.timer.halt();
		}
		this.factory.destroy();
	}

	@Test
	void downWhileTheTimerLoopIsStuck() throws InterruptedException {
		CountDownLatch stuck = new CountDownLatch(1);
		CountDownLatch entered = new CountDownLatch(1);
		this.timer = timer(new OwnBucketZeroBackend() {

			@Override
			public Promotion promote(int bucket, boolean guard) {
				entered.countDown();
				try {
					stuck.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return new Promotion(0, 0, -1, System.currentTimeMillis(), List.of(), -2);
			}

		});
		DelayQueueHealthIndicator health = indicator(this.timer);
		try {
			this.timer.start();
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
				Health down = health.health();
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails().get("timer")).isEqualTo("stalled");
				assertThat(down.getDetails().get("redis")).isEqualTo("reachable");
				assertThat(down.getDetails().get("problems")).asString()
					.startsWith("[bucket timer made no progress for ");
			});
			stuck.countDown();
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(health.health().getStatus()).isEqualTo(Status.UP));
		}
		finally {
			stuck.countDown();
		}
	}

	/**
	 * A step that throws an {@code Error} (not only a Redis failure) keeps the loop alive but
	 * makes no progress: DOWN, naming the error; UP once the step works again.
	 */
	@Test
	void downWhileTheTimerStepFailsWithAnError() {
		AtomicBoolean broken = new AtomicBoolean(true);
		this.timer = timer(new OwnBucketZeroBackend() {

			@Override
			public Promotion promote(int bucket, boolean guard) {
				if (broken.get()) {
					throw new StackOverflowError("deep in a promotion");
				}
				return new Promotion(0, 0, -1, System.currentTimeMillis(), List.of(), -2);
			}

		});
		DelayQueueHealthIndicator health = indicator(this.timer);
		this.timer.start();
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			Health down = health.health();
			assertThat(down.getStatus()).isEqualTo(Status.DOWN);
			assertThat(down.getDetails().get("problems")).asString()
				.startsWith("[bucket timer made no progress for ")
				.contains("(last error: java.lang.StackOverflowError: deep in a promotion)");
		});
		broken.set(false);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(health.health().getStatus()).isEqualTo(Status.UP));
	}

	/**
	 * An instance that runs no timer ({@code delayqueue.timer.enabled=false}) and no listener
	 * is UP while Redis answers.
	 */
	@Test
	void upWithoutTimerAndListeners() {
		Health up = indicator(null).health();
		assertThat(up.getStatus()).isEqualTo(Status.UP);
		assertThat(up.getDetails()).containsEntry("timer", "off")
			.containsEntry("bucketsOwned", 0)
			.containsEntry("redis", "reachable")
			.containsEntry("listeners", Map.of());
	}

	private DelayQueueHealthIndicator indicator(BucketTimer timer) {
		return new DelayQueueHealthIndicator(this.factory, null, timer, List::of, null, Duration.ofSeconds(2),
				Duration.ofMillis(300), Map.of());
	}

	private static BucketTimer timer(TimerBackend backend) {
		return new BucketTimer(backend, 1, 100, Duration.ofMillis(100), Duration.ofSeconds(5), new RedisClock(System::nanoTime),
				() -> {
				});
	}

}
