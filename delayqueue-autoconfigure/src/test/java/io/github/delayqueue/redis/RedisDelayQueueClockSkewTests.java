package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Timing comes from Redis's clock: the local estimate of it advances by a monotonic clock
 * between replies, never by the wall clock, so a local clock that is off or steps changes
 * nothing.
 */
class RedisDelayQueueClockSkewTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	/**
	 * The monotonic clock's origin is arbitrary (10 minutes either way, or so close to
	 * {@link Long#MAX_VALUE} that it wraps around half a second into the test): jobs are
	 * promoted on time all the same.
	 */
	@ParameterizedTest
	@ValueSource(longs = { 10, -10, 0 })
	void instanceWhoseMonotonicClockHasAnyOriginDeliversOnTimeByRedisClock(long originMinutes) throws Exception {
		long start = System.nanoTime();
		long origin = (originMinutes != 0) ? TimeUnit.MINUTES.toNanos(originMinutes)
				: Long.MAX_VALUE - TimeUnit.MILLISECONDS.toNanos(500);
		LongSupplier nanoTime = () -> origin + (System.nanoTime() - start);
		RedisDelayQueue queue = this.queues.start((builder) -> {
			builder.nanoTime = nanoTime;
			return builder;
		});
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			requests.add(request("skew", "job-" + i, "x", Duration.ofMillis(200 + i * 10)));
		}
		try (Consumer consumer = new Consumer(queue, "skew", 2, 20)) {
			queue.scheduleAll(requests);
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(consumer.distinct()).isEqualTo(100));
			for (ReservedJob job : consumer.delivered) {
				Duration lag = Duration.between(job.dueAt(), job.deliveredAt());
				assertThat(lag).as("lag of %s", job.id())
					.isGreaterThanOrEqualTo(Duration.ZERO)
					.isLessThan(Duration.ofMillis(500));
			}
		}
	}

	/**
	 * Between two replies the estimate moves with the monotonic clock alone: it stands still
	 * while that clock does, whatever the wall clock does meanwhile (an NTP step back used to
	 * move it back by as much).
	 */
	@Test
	void estimateMovesWithTheMonotonicClockOnly() throws InterruptedException {
		AtomicLong nanos = new AtomicLong(-TimeUnit.DAYS.toNanos(3));
		RedisClock clock = new RedisClock(nanos::get);
		clock.update(1_000_000);
		assertThat(clock.millis()).isEqualTo(1_000_000);
		long wallBefore = System.currentTimeMillis();
		await().until(() -> System.currentTimeMillis() > wallBefore + 5);
		assertThat(clock.millis()).isEqualTo(1_000_000);
		nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(250));
		assertThat(clock.millis()).isEqualTo(1_000_250);
		clock.update(2_000_000);
		nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(40));
		assertThat(clock.millis()).isEqualTo(2_000_040);
	}

	@Test
	void estimateIsRightAcrossAWrapAroundOfTheMonotonicClock() {
		AtomicLong nanos = new AtomicLong(Long.MAX_VALUE - TimeUnit.MILLISECONDS.toNanos(10));
		RedisClock clock = new RedisClock(nanos::get);
		clock.update(5_000);
		nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(30));
		assertThat(nanos.get()).isNegative();
		assertThat(clock.millis()).isEqualTo(5_030);
	}

}
