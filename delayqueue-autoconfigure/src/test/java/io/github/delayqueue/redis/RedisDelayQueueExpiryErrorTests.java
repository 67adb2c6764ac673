package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The error recorded when a reservation's TTR runs out on the job's last attempt.
 */
class RedisDelayQueueExpiryErrorTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	@Test
	void theErrorOfAnExpiredReservationDoesNotNameTheJobsOwnTtrWhenTheReservationHadAnother() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		queue.schedule(new ScheduleRequest("expiry", "1", "{}".getBytes(StandardCharsets.UTF_8), Duration.ZERO, null,
				Duration.ofMinutes(1), 1, OnDuplicate.KEEP, Map.of(), null));
		ReservedJob job = queue.reserve("expiry", 1, Duration.ofMillis(50)).get(0);
		// Redis's clock (stats() reads it) passes the deadline; then the timer's step expires it
		await().atMost(Duration.ofSeconds(5)).until(() -> queue.stats().readAt().isAfter(job.reservedUntil()));
		TimerSteps.promote(queue, 0, false);

		JobInfo dead = queue.find("expiry", "1").orElseThrow();
		// the reservation's TTR (50 ms) is not stored, and the job's own (60 s) is not what ran out
		assertThat(dead.lastError()).isEqualTo("the reservation ran out (TTR) on attempt 1 of 1");
	}

}
