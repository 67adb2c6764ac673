package io.github.delayqueue.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RedisDelayQueueClockSkewTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	@ParameterizedTest
	@ValueSource(longs = { 10, -10 })
	void instanceWhoseClockIsTenMinutesOffDeliversOnTimeByRedisClock(long skewMinutes) throws Exception {
		Clock skewed = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(skewMinutes));
		RedisDelayQueue queue = this.queues.start((builder) -> builder.clock(skewed));
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			requests.add(request("skew", "job-" + i, "x", Duration.ofMillis(200 + i * 10)));
		}
		try (Consumer consumer = new Consumer(queue, "skew", 2, 20)) {
			queue.scheduleAll(requests);
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(consumer.distinct()).isEqualTo(100));
			for (ReservedJob job : consumer.delivered) {
				Duration lag = Duration.between(job.dueAt(), job.deliveredAt());
				assertThat(lag).as("lag of %s", job.id()).isGreaterThanOrEqualTo(Duration.ZERO).isLessThan(Duration.ofMillis(500));
			}
		}
	}

}
