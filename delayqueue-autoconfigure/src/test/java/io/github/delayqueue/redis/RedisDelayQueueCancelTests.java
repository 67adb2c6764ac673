package io.github.delayqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ReservedJob;
import org.junit.jupiter.api.Test;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RedisDelayQueueCancelTests extends AbstractRedisDelayQueueTests {

	@Test
	void jobCancelledBeforeItIsDueIsNeverDelivered() throws Exception {
		this.queue.schedule(request("cancel", "early", "x", Duration.ofMillis(400)));
		this.queue.schedule(request("cancel", "kept", "y", Duration.ofMillis(600)));
		assertThat(this.queue.cancel("cancel", "early")).isTrue();
		assertThat(this.queue.cancel("cancel", "early")).as("second cancel").isFalse();
		assertThat(this.queue.find("cancel", "early")).isEmpty();
		try (Consumer consumer = new Consumer(this.queue, "cancel", 1, 10)) {
			await().atMost(Duration.ofSeconds(5)).until(() -> consumer.distinct() == 1);
			assertThat(consumer.deliveries).containsOnlyKeys("kept");
		}
	}

	@Test
	void runNowMakesADelayedJobDueLeavesAReadyOneAndRefusesAReservedOne() {
		this.queue.schedule(request("run", "later", "x", Duration.ofHours(1)));
		this.queue.schedule(request("run", "due", "y", Duration.ZERO));
		assertThat(this.queue.reserve("run", 1, null)).extracting(ReservedJob::id).containsExactly("due");
		this.queue.schedule(request("run", "ready", "z", Duration.ZERO));
		java.time.Instant readyDue = this.queue.find("run", "ready").orElseThrow().dueAt();

		assertThat(this.queue.runNow("run", "later")).contains(RescheduleResult.RESCHEDULED);
		assertThat(this.queue.find("run", "later").orElseThrow().dueAt()).isBefore(readyDue.plus(Duration.ofMinutes(1)));
		assertThat(this.queue.runNow("run", "ready")).as("READY: left as it is").isEmpty();
		assertThat(this.queue.find("run", "ready").orElseThrow().dueAt()).isEqualTo(readyDue);
		assertThat(this.queue.runNow("run", "due")).as("RESERVED").contains(RescheduleResult.NOT_WAITING);
		assertThat(this.queue.runNow("run", "none")).contains(RescheduleResult.NOT_FOUND);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.queue.find("run", "later").orElseThrow().state() == JobState.READY);
		assertThat(this.queue.reserve("run", 10, null)).extracting(ReservedJob::id).containsExactly("ready", "later");
	}

	@Test
	void readyJobCancelledLeavesATombstoneThatReserveSkips() {
		this.queue.schedule(request("tomb", "a", "1", Duration.ZERO));
		this.queue.schedule(request("tomb", "b", "2", Duration.ZERO));
		assertThat(this.queue.find("tomb", "a").orElseThrow().state()).isEqualTo(JobState.READY);
		assertThat(this.queue.cancel("tomb", "a")).isTrue();
		assertThat(this.queue.stats().topics().get("tomb").ready()).isEqualTo(1);

		List<ReservedJob> jobs = this.queue.reserve("tomb", 10, null);
		assertThat(jobs).extracting(ReservedJob::id).containsExactly("b");
		assertThat(this.queue.reserve("tomb", 10, null)).isEmpty();
	}

	@Test
	void jobCancelledAndScheduledAgainUnderTheSameIdIsDeliveredOnce() {
		this.queue.schedule(request("tomb", "same", "old", Duration.ZERO));
		this.queue.cancel("tomb", "same");
		this.queue.schedule(request("tomb", "same", "new", Duration.ZERO));
		List<ReservedJob> jobs = this.queue.reserve("tomb", 10, null);
		assertThat(jobs).hasSize(1);
		assertThat(jobs.get(0).payloadAsString()).isEqualTo("new");
		assertThat(this.queue.reserve("tomb", 10, null)).isEmpty();
	}

	@Test
	void reservedJobCancelledRefusesTheHoldersFinishFailAndTouch() {
		this.queue.schedule(request("held", "h", "x", Duration.ZERO));
		ReservedJob job = this.queue.reserve("held", 1, null).get(0);
		assertThat(this.queue.cancel("held", "h")).isTrue();

		assertThat(this.queue.finish(job)).isFalse();
		assertThat(this.queue.fail(job, Duration.ofSeconds(1), "boom")).isEqualTo(FailResult.STALE);
		assertThat(this.queue.touch(job, null)).isEmpty();
		assertThat(this.queue.release(job)).isFalse();
		assertThat(this.queue.find("held", "h")).isEmpty();
		assertThat(this.queue.stats().topics()).doesNotContainKey("held");
	}

	@Test
	void reservedJobReplacedUnderTheSameIdFencesTheOldHolder() {
		this.queue.schedule(request("held", "r", "v1", Duration.ZERO));
		ReservedJob old = this.queue.reserve("held", 1, null).get(0);
		this.queue.schedule(new io.github.delayqueue.core.ScheduleRequest("held", "r", "v2".getBytes(), Duration.ZERO,
				null, null, null, io.github.delayqueue.core.OnDuplicate.REPLACE, Map.of(), null));
		ReservedJob fresh = this.queue.reserve("held", 1, null).get(0);
		assertThat(fresh.payloadAsString()).isEqualTo("v2");
		assertThat(fresh.token()).isNotEqualTo(old.token());

		assertThat(this.queue.finish(old)).as("old holder").isFalse();
		assertThat(this.queue.find("held", "r").orElseThrow().state()).isEqualTo(JobState.RESERVED);
		assertThat(this.queue.finish(fresh)).isTrue();
	}

}
