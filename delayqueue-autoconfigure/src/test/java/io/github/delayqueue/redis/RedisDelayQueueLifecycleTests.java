package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.ScheduleResult;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class RedisDelayQueueLifecycleTests extends AbstractRedisDelayQueueTests {

	@Test
	void jobGoesFromScheduledToDeliveredToFinishedAndLeavesNothingBehind() throws InterruptedException {
		ScheduleResult result = this.queue.schedule(request("order-close", "42", "{\"orderId\":42}",
				Duration.ofMillis(300)));
		assertThat(result.created()).isTrue();
		assertThat(result.state()).isEqualTo(JobState.DELAYED);
		assertThat(this.queue.find("order-close", "42")).hasValueSatisfying((job) -> {
			assertThat(job.state()).isEqualTo(JobState.DELAYED);
			assertThat(job.attempt()).isZero();
			assertThat(job.payloadAsString()).isEqualTo("{\"orderId\":42}");
		});
		assertThat(this.queue.reserve("order-close", 10, null)).isEmpty();

		assertThat(this.queue.awaitWork("order-close", Duration.ofSeconds(5))).isTrue();
		List<ReservedJob> jobs = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.queue.reserve("order-close", 10, null), (list) -> !list.isEmpty());
		assertThat(jobs).hasSize(1);
		ReservedJob job = jobs.get(0);
		assertThat(job.id()).isEqualTo("42");
		assertThat(job.attempt()).isEqualTo(1);
		assertThat(new String(job.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"orderId\":42}");
		assertThat(job.deliveredAt()).isAfterOrEqualTo(job.dueAt());
		assertThat(this.queue.find("order-close", "42").orElseThrow().state()).isEqualTo(JobState.RESERVED);

		assertThat(this.queue.finish(job)).isTrue();
		assertThat(this.queue.find("order-close", "42")).isEmpty();
		assertThat(this.queue.stats().totals().total()).isZero();
		// only the buckets' token counters stay (the instances' heartbeats are not the buckets'
		// keys; the counts that fell to 0 wait for the guard, and the snapshot leaves them out)
		assertThat(this.queues.bucketSnapshot().keySet()).allMatch((key) -> key.endsWith(":seq"));
		for (int bucket = 0; bucket < this.queue.getBuckets(); bucket++) {
			TimerSteps.promote(this.queue, bucket, true);
		}
		try (RedisConnection connection = this.queue.getConnectionFactory().getConnection()) {
			for (int bucket = 0; bucket < this.queue.getBuckets(); bucket++) {
				String stats = "{" + this.queue.getNamespace() + ":" + bucket + "}:stats";
				assertThat(connection.keyCommands().exists(stats.getBytes(StandardCharsets.UTF_8))).as(stats).isFalse();
			}
		}
	}

	@Test
	void theLongestNegativeDelayMakesAJobDueBeforeTheEpochThatIsReadyAtOnce() {
		ScheduleResult result = this.queue.schedule(request("past", "1", "old", JobConstraints.MAX_DELAY.negated()));
		assertThat(result.created()).isTrue();
		assertThat(result.state()).isEqualTo(JobState.READY);
		assertThat(result.dueAt()).isBefore(Instant.EPOCH);
		assertThat(this.queue.find("past", "1").orElseThrow().dueAt()).isEqualTo(result.dueAt());
		List<ReservedJob> jobs = this.queue.reserve("past", 10, null);
		assertThat(jobs).extracting(ReservedJob::dueAt).containsExactly(result.dueAt());
		assertThat(this.queue.fail(jobs.get(0), Duration.ZERO, "again")).isEqualTo(FailResult.RETRYING);
		assertThat(this.queue.finish(this.queue.reserve("past", 10, null).get(0))).isTrue();
	}

	@Test
	void aJobKeepsEveryFieldThroughItsTransitionsInARecordWithAShortHeader() {
		String payload = "{\"orderId\":7}";
		ScheduleResult result = this.queue.schedule(new ScheduleRequest("order-close", "7",
				payload.getBytes(StandardCharsets.UTF_8), Duration.ofHours(1), null, Duration.ofSeconds(45), 7,
				OnDuplicate.KEEP, Map.of(), null));
		JobInfo info = this.queue.find("order-close", "7").orElseThrow();
		Instant created = info.createdAt();
		assertThat(info.dueAt()).isEqualTo(result.dueAt()).isEqualTo(created.plus(Duration.ofHours(1)));
		assertThat(info.ttr()).isEqualTo(Duration.ofSeconds(45));
		assertThat(info.maxAttempts()).isEqualTo(7);
		assertThat(info.attempt()).isZero();
		// header + payload: a 200-byte payload and a header of at most 26 bytes fit a 224-byte allocation
		assertThat(this.queues.jobRecord("order-close:7")).hasSizeLessThanOrEqualTo(payload.length() + 26)
			.endsWith("\n" + payload);

		Instant later = created.plus(Duration.ofDays(3)).plusMillis(7);
		assertThat(this.queue.rescheduleAt("order-close", "7", later)).isEqualTo(RescheduleResult.RESCHEDULED);
		assertThat(this.queue.find("order-close", "7").orElseThrow()).satisfies((job) -> {
			assertThat(job.dueAt()).isEqualTo(later);
			assertThat(job.createdAt()).isEqualTo(created);
		});

		assertThat(this.queue.reschedule("order-close", "7", Duration.ZERO)).isEqualTo(RescheduleResult.RESCHEDULED);
		ReservedJob job = this.queue.reserve("order-close", 10, null).get(0);
		assertThat(job.createdAt()).isEqualTo(created);
		assertThat(job.dueAt()).isAfterOrEqualTo(created).isBeforeOrEqualTo(job.deliveredAt());
		assertThat(job.attempt()).isEqualTo(1);
		assertThat(job.maxAttempts()).isEqualTo(7);
		assertThat(job.ttr()).isEqualTo(Duration.ofSeconds(45));
		assertThat(job.reservedUntil()).isEqualTo(job.deliveredAt().plus(Duration.ofSeconds(45)));
		assertThat(this.queue.find("order-close", "7").orElseThrow().dueAt()).isEqualTo(job.dueAt());

		assertThat(this.queue.fail(job, Duration.ofMinutes(5), "later")).isEqualTo(FailResult.RETRYING);
		assertThat(this.queue.find("order-close", "7").orElseThrow()).satisfies((retry) -> {
			assertThat(retry.state()).isEqualTo(JobState.DELAYED);
			assertThat(retry.attempt()).isEqualTo(1);
			assertThat(retry.maxAttempts()).isEqualTo(7);
			assertThat(retry.ttr()).isEqualTo(Duration.ofSeconds(45));
			assertThat(retry.createdAt()).isEqualTo(created);
			assertThat(retry.dueAt()).isAfterOrEqualTo(job.deliveredAt().plus(Duration.ofMinutes(5)));
			assertThat(retry.lastError()).isEqualTo("later");
		});
	}

	@Test
	void aRecordInAnotherFormatIsReportedAndLeftAsItIs() {
		this.queues.skipInvariant("records in another format, on purpose");
		this.queue.schedule(request("order-close", "9", "{}", Duration.ofHours(1)));
		this.queue.schedule(request("order-close", "10", "{}", Duration.ZERO));
		assertThat(this.queue.kill(this.queue.reserve("order-close", 10, null).get(0), "gone"))
			.isEqualTo(FailResult.DEAD);
		String earlierFormat = "D,0,3,30000,1795000000000,1794999000000,0\n{}";
		this.queues.overwriteJobRecord("order-close:9", earlierFormat);
		this.queues.overwriteJobRecord("order-close:10", "X,1,3,30000,1795000000000,1794999000000,1\n{}");
		Map<String, String> before = this.queues.bucketSnapshot();
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> this.queue.replayDead("order-close", "10"))
			.withMessageContaining("the record of job order-close:10");
		assertThatExceptionOfType(DelayQueueException.class).isThrownBy(() -> this.queue.find("order-close", "9"))
			.withMessageContaining("the record of job order-close:9")
			.withMessageContaining("is not in the format of this version")
			.withMessageContaining("D,0,3,30000,1795000000000");
		assertThatExceptionOfType(DelayQueueException.class).isThrownBy(() -> this.queue.cancel("order-close", "9"))
			.withMessageContaining("not in the format of this version");
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> this.queue.reschedule("order-close", "9", Duration.ZERO))
			.withMessageContaining("not in the format of this version");
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> this.queue.schedule(request("order-close", "9", "{}", Duration.ZERO)))
			.withMessageContaining("not in the format of this version");
		assertThat(this.queues.bucketSnapshot()).isEqualTo(before);
		assertThat(this.queues.jobRecord("order-close:9")).isEqualTo(earlierFormat);
	}

	@Test
	void aStoppedQueueStartsAgainAndDeliversWithItsTimerAndItsSubscription() {
		for (int round = 0; round < 2; round++) {
			this.queue.stop();
			assertThat(this.queue.isRunning()).isFalse();
			this.queue.start();
			assertThat(this.queue.isRunning()).isTrue();
			await().atMost(Duration.ofSeconds(5)).until(this.queue::isSubscribed);
			String id = "again-" + round;
			this.queue.schedule(request("restarts", id, "{}", Duration.ofMillis(200)));
			// the timer promotes it, and its announcement wakes the waiting consumer
			List<ReservedJob> jobs = await().atMost(Duration.ofSeconds(5))
				.until(() -> this.queue.awaitWork("restarts", Duration.ofSeconds(1))
						? this.queue.reserve("restarts", 10, null) : List.<ReservedJob>of(), (list) -> !list.isEmpty());
			assertThat(jobs).extracting(ReservedJob::id).containsExactly(id);
			assertThat(this.queue.finish(jobs.get(0))).isTrue();
		}
	}

	static ScheduleRequest request(String topic, String id, String payload, Duration delay) {
		return new ScheduleRequest(topic, id, payload.getBytes(StandardCharsets.UTF_8), delay, null, null, null,
				OnDuplicate.KEEP, Map.of(), null);
	}

}
