package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.FinishResult;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.QueueStats.TopicStats;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.ScheduleResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The largest inputs every operation allows, all in one bucket: far past the number of
 * values Lua's {@code unpack} takes (near 8,000), so that a script that passed a whole batch
 * to one variadic command would fail half-way and strand the jobs it had moved. The
 * extension checks the invariant after each test.
 */
class RedisDelayQueueBigBatchTests {

	private static final int JOBS = 20_000;

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private static List<ScheduleRequest> requests(String topic, Duration delay, Duration ttr, int maxAttempts) {
		List<ScheduleRequest> requests = new ArrayList<>(JOBS);
		for (int i = 0; i < JOBS; i++) {
			requests.add(new ScheduleRequest(topic, "job-" + i, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8),
					delay, null, ttr, maxAttempts, OnDuplicate.KEEP, Map.of(), null));
		}
		return requests;
	}

	private static TopicStats figures(RedisDelayQueue queue, String topic) {
		return queue.stats().topics().getOrDefault(topic, TopicStats.EMPTY);
	}

	/** Reserves every READY job of a topic, at the most a reserve allows per call. */
	private static List<ReservedJob> reserveAll(RedisDelayQueue queue, String topic, Duration ttr) {
		List<ReservedJob> all = new ArrayList<>();
		await().atMost(Duration.ofSeconds(60)).until(() -> {
			all.addAll(queue.reserve(topic, 10_000, ttr));
			return all.size() == JOBS;
		});
		return all;
	}

	@Test
	void bulkScheduleAndBulkFinishOfTwentyThousandJobsInOneBucket() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1));
		List<ScheduleResult> results = queue.scheduleAll(requests("bulk", Duration.ZERO, null, 5));
		assertThat(results).hasSize(JOBS).allMatch(ScheduleResult::created);
		assertThat(figures(queue, "bulk").ready()).isEqualTo(JOBS);

		List<ReservedJob> reserved = reserveAll(queue, "bulk", Duration.ofMinutes(5));
		assertThat(reserved).extracting(ReservedJob::id).doesNotHaveDuplicates();
		assertThat(figures(queue, "bulk").reserved()).isEqualTo(JOBS);

		FinishResult finished = queue.finishAndReserve(reserved, 0, null);
		assertThat(finished.stale()).isEmpty();
		assertThat(figures(queue, "bulk")).isEqualTo(TopicStats.EMPTY);
	}

	@Test
	void promoteAtTheLargestBatchSizeMovesABacklogOfTwentyThousandDueJobs() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).batchSize(10_000));
		// one due time for all: the timer finds 20,000 due at once
		Instant due = Instant.now().plusSeconds(2);
		List<ScheduleRequest> requests = new ArrayList<>(JOBS);
		for (ScheduleRequest request : requests("backlog", Duration.ZERO, null, 5)) {
			requests.add(new ScheduleRequest(request.topic(), request.id(), request.payload(), null, due, null, null,
					OnDuplicate.KEEP, Map.of(), null));
		}
		queue.scheduleAll(requests);
		assertThat(figures(queue, "backlog").delayed()).isEqualTo(JOBS);
		await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
			TopicStats figures = figures(queue, "backlog");
			assertThat(figures.delayed()).isZero();
			assertThat(figures.ready()).isEqualTo(JOBS);
		});
		assertThat(reserveAll(queue, "backlog", null)).extracting(ReservedJob::id).doesNotHaveDuplicates();
	}

	@Test
	void expiryOfTwentyThousandReservationsOnTheirLastAttemptAndReplayOfAllOfThem() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).batchSize(10_000));
		queue.scheduleAll(requests("replayed", Duration.ZERO, Duration.ofMillis(200), 1));
		reserveAll(queue, "replayed", null);
		// the timer finds every reservation expired on its last attempt: DEAD, 10,000 at a time
		await().atMost(Duration.ofSeconds(60))
			.untilAsserted(() -> assertThat(figures(queue, "replayed").dead()).isEqualTo(JOBS));

		assertThat(queue.replayDeadJobs("replayed", 100_000).count()).isEqualTo(JOBS);
		TopicStats figures = figures(queue, "replayed");
		assertThat(figures.dead()).isZero();
		assertThat(figures.ready()).isEqualTo(JOBS);
		List<ReservedJob> again = reserveAll(queue, "replayed", Duration.ofMinutes(5));
		assertThat(again).allMatch((job) -> job.attempt() == 1);
		assertThat(queue.finishAndReserve(again, 0, null).stale()).isEmpty();
	}

}
