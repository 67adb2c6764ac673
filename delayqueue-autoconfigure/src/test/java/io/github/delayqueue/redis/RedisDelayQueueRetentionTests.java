package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.delayqueue.core.CompletedJobPage;
import io.github.delayqueue.core.FinishResult;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.Retention;
import io.github.delayqueue.core.ScheduleRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Finished-job retention: which finished jobs a topic keeps, what {@code find} and the pages
 * answer for them, what they cost in memory, and that trimming stays bounded per call.
 */
class RedisDelayQueueRetentionTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private RedisDelayQueue start(Retention retention) {
		return this.queues.start((builder) -> builder.timerEnabled(false).retention("kept", retention));
	}

	/** Schedules jobs due now with ids whose byte order is their number's (same-ms ties sort right). */
	private static void scheduleDue(RedisDelayQueue queue, String topic, int from, int count, String payload) {
		List<ScheduleRequest> requests = new ArrayList<>(count);
		for (int i = from; i < from + count; i++) {
			requests.add(new ScheduleRequest(topic, id(i), payload.getBytes(StandardCharsets.UTF_8), Duration.ZERO,
					null, Duration.ofMinutes(5), 3, OnDuplicate.KEEP, Map.of("h", "v" + i), null));
		}
		queue.scheduleAll(requests);
	}

	private static String id(int i) {
		return String.format("job-%06d", i);
	}

	/** Reserves every READY job of a topic and finishes them, {@code per} to a finish call. */
	private static List<ReservedJob> drain(RedisDelayQueue queue, String topic, int count, int per) {
		List<ReservedJob> all = new ArrayList<>(count);
		while (all.size() < count) {
			List<ReservedJob> jobs = await().atMost(Duration.ofSeconds(10))
				.until(() -> queue.reserve(topic, Math.min(per, count - all.size()), null), (list) -> !list.isEmpty());
			FinishResult result = queue.finishAndReserve(jobs, 0, null);
			assertThat(result.stale()).isEmpty();
			all.addAll(jobs);
		}
		return all;
	}

	/** Schedules one job due now and runs it to its finish. */
	private static void runOne(RedisDelayQueue queue, String topic, int i, String payload) {
		scheduleDue(queue, topic, i, 1, payload);
		promote(queue);
		drain(queue, topic, 1, 1);
	}

	/** Promotes every bucket once: the queues here run no timer. */
	private static void promote(RedisDelayQueue queue) {
		for (int b = 0; b < queue.getBuckets(); b++) {
			TimerSteps.promote(queue, b, false);
		}
	}

	@Test
	void tenThousandFinishedWithCompletedOneThousandKeepExactlyTheLastThousandAcrossARestart() {
		RedisDelayQueue queue = start(Retention.lastCompleted(1_000));
		// finished in order, 100 to a call: the jobs of one bucket's finish share their finish
		// time, and their ids sort in their order, as Redis orders equal finish times
		long afterTwoThousand = 0;
		for (int round = 0; round < 10; round++) {
			scheduleDue(queue, "kept", round * 1_000, 1_000, "{}");
			promote(queue);
			List<ReservedJob> reserved = new ArrayList<>();
			while (reserved.size() < 1_000) {
				reserved.addAll(queue.reserve("kept", 1_000 - reserved.size(), null));
			}
			reserved.sort(Comparator.comparing(ReservedJob::id));
			for (int i = 0; i < 1_000; i += 100) {
				assertThat(queue.finishAndReserve(reserved.subList(i, i + 100), 0, null).stale()).isEmpty();
			}
			if (round == 1) {
				afterTwoThousand = memoryUsage(queue, "kept");
			}
		}
		assertLastThousandKept(queue);
		long used = memoryUsage(queue, "kept");
		// bounded: 8,000 more finishes changed nothing but which jobs are kept (a kept job
		// without its payload costs its key twice and a 40-byte header: about 250 bytes)
		assertThat(used).as("bytes kept after 10,000 finishes").isBetween(afterTwoThousand * 95 / 100,
				afterTwoThousand * 105 / 100);
		assertThat(used / 1_000).as("bytes per kept job").isLessThan(400);

		queue.stop();
		RedisDelayQueue restarted = start(Retention.lastCompleted(1_000));
		assertLastThousandKept(restarted);
		assertThat(memoryUsage(restarted, "kept")).isEqualTo(used);
	}

	private static void assertLastThousandKept(RedisDelayQueue queue) {
		CompletedJobPage first = queue.completedJobs("kept", null, 10, false);
		assertThat(first.total()).isEqualTo(1_000);
		for (int i = 0; i < 10_000; i += 37) {
			Optional<JobInfo> found = queue.find("kept", id(i));
			if (i >= 9_000) {
				assertThat(found).as(id(i)).get().extracting(JobInfo::state).isEqualTo(JobState.COMPLETED);
			}
			else {
				assertThat(found).as(id(i)).isEmpty();
			}
		}
		assertThat(queue.find("kept", id(8_999))).isEmpty();
		assertThat(queue.find("kept", id(9_000))).isPresent();
		assertThat(queue.find("kept", id(9_999))).isPresent();
	}

	private long memoryUsage(RedisDelayQueue queue, String topic) {
		KeySpace keys = new KeySpace(this.queues.namespace, queue.getBuckets());
		return this.queues.memoryUsage(List.of(keys.completed(topic), keys.completedOrder(topic)));
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	@Test
	void aKeptJobTellsWhenItFinishedOnWhichAttemptAndForHowLong() {
		RedisDelayQueue queue = start(Retention.lastCompleted(10));
		queue.schedule(new ScheduleRequest("kept", "a", "{\"n\":1}".getBytes(StandardCharsets.UTF_8), Duration.ZERO,
				null, Duration.ofSeconds(30), 4, OnDuplicate.KEEP, Map.of("trace", "t-1"), null));
		promote(queue);
		ReservedJob first = queue.reserve("kept", 1, null).get(0);
		queue.fail(first, Duration.ZERO, "boom");
		ReservedJob second = queue.reserve("kept", 1, null).get(0);
		assertThat(queue.finish(second)).isTrue();

		JobInfo info = queue.find("kept", "a").orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.COMPLETED);
		assertThat(info.attempt()).isEqualTo(2);
		assertThat(info.maxAttempts()).isEqualTo(4);
		assertThat(info.ttr()).isEqualTo(Duration.ofSeconds(30));
		assertThat(info.dueAt()).isEqualTo(second.dueAt());
		assertThat(info.createdAt()).isEqualTo(second.createdAt());
		assertThat(info.finishedAt()).isAfterOrEqualTo(second.deliveredAt());
		assertThat(info.runTime()).isEqualTo(Duration.between(second.deliveredAt(), info.finishedAt()));
		assertThat(info.reservedUntil()).isNull();
		assertThat(info.diedAt()).isNull();
		assertThat(info.lastError()).isNull();
		// without payloads unless asked
		assertThat(info.payload()).isNull();
		assertThat(info.headers()).isEmpty();
		assertThat(info.payloadAsString()).isNull();
	}

	@Test
	void aReplayedJobIsKeptWithTheAttemptsOfItsNewLifeAndWithoutItsLastError() {
		RedisDelayQueue queue = start(Retention.lastCompleted(10));
		for (Integer priority : java.util.Arrays.asList(null, 8)) {
			String id = (priority != null) ? "urgent" : "plain";
			queue.schedule(new ScheduleRequest("kept", id, "{}".getBytes(StandardCharsets.UTF_8), Duration.ZERO,
					null, Duration.ofSeconds(30), 1, OnDuplicate.KEEP, Map.of(), priority));
			promote(queue);
			queue.kill(queue.reserve("kept", 1, null).get(0), "boom " + id);
			assertThat(queue.replayDead("kept", id)).isTrue();
			assertThat(queue.find("kept", id).orElseThrow().lastError()).isEqualTo("boom " + id);
			ReservedJob again = queue.reserve("kept", 1, null).get(0);
			assertThat(again.attempt()).isEqualTo(1);
			assertThat(queue.find("kept", id).orElseThrow().attempt()).isEqualTo(1);
			assertThat(queue.finish(again)).isTrue();

			JobInfo info = queue.find("kept", id).orElseThrow();
			assertThat(info.state()).isEqualTo(JobState.COMPLETED);
			assertThat(info.attempt()).isEqualTo(1);
			assertThat(info.maxAttempts()).isEqualTo(1);
			assertThat(info.lastError()).isNull();
		}
		// (the queues' invariant check after the test: no error is kept for a job that is gone)
	}

	@Test
	void payloadsAndHeadersAreKeptWhenAsked() {
		RedisDelayQueue queue = start(Retention.lastCompleted(10).withPayloads());
		runOne(queue, "kept", 1, "{\"order\":42}");
		JobInfo info = queue.find("kept", id(1)).orElseThrow();
		assertThat(info.payloadAsString()).isEqualTo("{\"order\":42}");
		assertThat(info.headers()).containsEntry("h", "v1");
		CompletedJobPage page = queue.completedJobs("kept", null, 10, true);
		assertThat(page.jobs()).singleElement().satisfies((job) -> {
			assertThat(job.payloadAsString()).isEqualTo("{\"order\":42}");
			assertThat(job.headers()).containsEntry("h", "v1");
		});
		assertThat(queue.completedJobs("kept", null, 10, false).jobs().get(0).payload()).isNull();
	}

	@Test
	void aTopicWithoutRetentionKeepsNothingAndALiveJobWinsOverItsKeptRun() {
		RedisDelayQueue queue = start(Retention.lastCompleted(10));
		runOne(queue, "other", 1, "{}");
		assertThat(queue.find("other", id(1))).isEmpty();
		assertThat(this.queues.snapshot().keySet()).noneMatch((key) -> key.contains("/done/"));

		runOne(queue, "kept", 1, "{}");
		assertThat(queue.find("kept", id(1))).get().extracting(JobInfo::state).isEqualTo(JobState.COMPLETED);
		// scheduled again under the same id: find answers the live job
		queue.schedule(new ScheduleRequest("kept", id(1), "{}".getBytes(StandardCharsets.UTF_8), Duration.ofHours(1),
				null, null, null, OnDuplicate.KEEP, Map.of(), null));
		assertThat(queue.find("kept", id(1))).get().extracting(JobInfo::state).isEqualTo(JobState.DELAYED);
		// cancelled: its earlier run is what is left
		assertThat(queue.cancel("kept", id(1))).isTrue();
		assertThat(queue.cancel("kept", id(1))).as("a kept run is no job to cancel").isFalse();
		assertThat(queue.find("kept", id(1))).get().extracting(JobInfo::state).isEqualTo(JobState.COMPLETED);
		// finished again: one entry, the latest run
		runOne(queue, "kept", 1, "{}");
		assertThat(queue.completedJobs("kept", null, 10, false).total()).isEqualTo(1);
	}

	@Test
	void aJobFinishedThroughAReservationThatKnowsOnlyItsTokenIsKeptAsItWas() {
		RedisDelayQueue queue = start(Retention.lastCompleted(10).withPayloads());
		scheduleDue(queue, "kept", 7, 1, "{\"n\":7}");
		promote(queue);
		ReservedJob held = queue.reserve("kept", 1, null).get(0);
		// as the HTTP job API finishes: topic, id and token, nothing else
		assertThat(queue.finish(ReservedJob.of("kept", id(7), held.token(), null))).isTrue();
		JobInfo info = queue.find("kept", id(7)).orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.COMPLETED);
		assertThat(info.attempt()).isEqualTo(1);
		assertThat(info.maxAttempts()).isEqualTo(3);
		assertThat(info.ttr()).isEqualTo(Duration.ofMinutes(5));
		assertThat(info.createdAt()).isEqualTo(held.createdAt());
		assertThat(info.dueAt()).isEqualTo(held.dueAt());
		assertThat(info.finishedAt()).isAfterOrEqualTo(held.deliveredAt());
		assertThat(info.runTime()).as("unknown: the reservation did not know its delivery").isNull();
		assertThat(info.payloadAsString()).isEqualTo("{\"n\":7}");
		assertThat(info.headers()).containsEntry("h", "v7");
	}

	@Test
	void aLateRecordOfAnEarlierRunDoesNotReplaceALaterOne() {
		RedisDelayQueue queue = start(Retention.lastCompleted(10));
		runOne(queue, "kept", 1, "{}");
		JobInfo kept = queue.find("kept", id(1)).orElseThrow();
		// the second call of an earlier run, arriving late: finished before the kept one
		KeySpace keys = new KeySpace(this.queues.namespace, queue.getBuckets());
		long earlier = kept.finishedAt().toEpochMilli() - 1_000;
		String record = "S1,3," + Long.toString(300_000, 36) + ",1,0,1\n";
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.scriptingCommands()
				.evalSha(LuaScript.of("completed", 2).sha(), ReturnType.MULTI, 2, keys.completed("kept"),
						keys.completedOrder("kept"), bytes("add"), bytes("10"), bytes("0"), bytes("100"),
						bytes(KeySpace.jobKey("kept", id(1))), bytes(String.valueOf(earlier)), bytes(record), bytes("1"));
		}
		assertThat(queue.find("kept", id(1)).orElseThrow().finishedAt()).isEqualTo(kept.finishedAt());
	}

	@Test
	void anUnreadableRecordKeepsNothingOfItsJobAndTheOthersOfItsCallAreKept() {
		RedisDelayQueue queue = start(Retention.lastCompleted(10));
		KeySpace keys = new KeySpace(this.queues.namespace, queue.getBuckets());
		String finished = String.valueOf(System.currentTimeMillis());
		String readable = "S1,3," + Long.toString(300_000, 36) + ",1,0,1\n";
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.scriptingCommands()
				.evalSha(LuaScript.of("completed", 2).sha(), ReturnType.MULTI, 2, keys.completed("kept"),
						keys.completedOrder("kept"), bytes("add"), bytes("10"), bytes("0"), bytes("100"),
						bytes(KeySpace.jobKey("kept", id(1))), bytes(finished), bytes(readable), bytes("0"),
						bytes(KeySpace.jobKey("kept", id(2))), bytes(finished), bytes("S1,not a record\n"), bytes("0"),
						bytes(KeySpace.jobKey("kept", id(3))), bytes(finished), bytes(readable), bytes("0"));
		}
		assertThat(queue.find("kept", id(1))).get().extracting(JobInfo::state).isEqualTo(JobState.COMPLETED);
		assertThat(queue.find("kept", id(2))).isEmpty();
		assertThat(queue.find("kept", id(3))).get().extracting(JobInfo::state).isEqualTo(JobState.COMPLETED);
		assertThat(queue.completedJobs("kept", null, 10, false).total()).isEqualTo(2);
	}

	@Test
	void anInstanceThatKnowsNoRetentionOfATopicReadsNothingOfIt() {
		RedisDelayQueue keeping = start(Retention.lastCompleted(10));
		runOne(keeping, "kept", 1, "{}");
		RedisDelayQueue other = this.queues.start((builder) -> builder.timerEnabled(false));
		assertThat(other.find("kept", id(1))).isEmpty();
		assertThat(other.completedJobs("kept", null, 10, false).total()).isZero();
		assertThat(keeping.find("kept", id(1))).isPresent();
	}

	@Test
	void aStaleFinishKeepsNothing() {
		RedisDelayQueue queue = start(Retention.lastCompleted(10));
		queue.schedule(new ScheduleRequest("kept", "s", "{}".getBytes(StandardCharsets.UTF_8), Duration.ZERO, null,
				Duration.ofMillis(200), 5, OnDuplicate.KEEP, Map.of(), null));
		promote(queue);
		ReservedJob first = queue.reserve("kept", 1, null).get(0);
		// its TTR runs out: the timer makes it READY again
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			promote(queue);
			return queue.find("kept", "s").map(JobInfo::state).orElseThrow() == JobState.READY;
		});
		assertThat(queue.finish(first)).isFalse();
		assertThat(queue.find("kept", "s")).get().extracting(JobInfo::state).isEqualTo(JobState.READY);
		assertThat(queue.completedJobs("kept", null, 10, false).total()).isZero();
	}

	@Test
	void jobsFinishedLongerAgoThanCompletedAgeAreDroppedByLaterFinishes() {
		RedisDelayQueue queue = start(Retention.completedWithin(Duration.ofMillis(300)));
		runOne(queue, "kept", 0, "{}");
		JobInfo old = queue.find("kept", id(0)).orElseThrow();
		// nothing scans in the background: a later finish drops it once it is older than 300 ms
		int[] next = { 1 };
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			runOne(queue, "kept", next[0], "{}");
			next[0]++;
			return queue.find("kept", id(0)).isEmpty();
		});
		JobInfo latest = queue.find("kept", id(next[0] - 1)).orElseThrow();
		assertThat(Duration.between(old.finishedAt(), latest.finishedAt())).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		// what is kept finished within the window of the latest finish
		for (JobInfo kept : queue.completedJobs("kept", null, 1_000, false).jobs()) {
			assertThat(Duration.between(kept.finishedAt(), latest.finishedAt())).isLessThanOrEqualTo(Duration.ofMillis(300));
		}
	}

	@Test
	void aLoweredLimitIsReachedOverAFewFinishesEachRemovingAtMostTheSlack() {
		RedisDelayQueue queue = start(Retention.lastCompleted(1_000));
		scheduleDue(queue, "kept", 0, 1_000, "{}");
		promote(queue);
		drain(queue, "kept", 1_000, 1_000);
		assertThat(queue.completedJobs("kept", null, 1, false).total()).isEqualTo(1_000);
		queue.stop();

		RedisDelayQueue lowered = start(Retention.lastCompleted(10));
		long kept = 1_000;
		int finishes = 0;
		while (kept > 10) {
			runOne(lowered, "kept", 2_000 + finishes, "{}");
			finishes++;
			long now = lowered.completedJobs("kept", null, 1, false).total();
			// one added, at most 1 + slack removed
			assertThat(kept + 1 - now).isBetween(0L, 1L + Retention.TRIM_SLACK);
			kept = now;
		}
		assertThat(finishes).isEqualTo(10);
		assertThat(kept).isEqualTo(10);
	}

	@Test
	void pagesGoFromTheLatestFinishBackWithACursorThatSurvivesTrimming() {
		RedisDelayQueue queue = start(Retention.lastCompleted(1_000));
		scheduleDue(queue, "kept", 0, 250, "{}");
		promote(queue);
		drain(queue, "kept", 250, 7);
		List<JobInfo> seen = new ArrayList<>();
		String cursor = null;
		int pages = 0;
		do {
			CompletedJobPage page = queue.completedJobs("kept", cursor, 100, false);
			assertThat(page.total()).isEqualTo(250);
			seen.addAll(page.jobs());
			cursor = page.next();
			pages++;
		}
		while (cursor != null);
		assertThat(pages).isEqualTo(3);
		assertThat(seen).extracting(JobInfo::id).doesNotHaveDuplicates().hasSize(250);
		for (int i = 1; i < seen.size(); i++) {
			assertThat(seen.get(i).finishedAt()).isBeforeOrEqualTo(seen.get(i - 1).finishedAt());
		}
		assertThatIllegalArgumentException().isThrownBy(() -> queue.completedJobs("kept", "not-a-cursor", 10, false))
			.withMessage("cursor must be the 'next' of a page of completed jobs, was 'not-a-cursor'");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.completedJobs("kept", null, 0, false))
			.withMessage("limit must be between 1 and 1000, was 0");
		assertThat(queue.completedJobs("nothing-kept", null, 10, false)).satisfies((page) -> {
			assertThat(page.total()).isZero();
			assertThat(page.jobs()).isEmpty();
			assertThat(page.next()).isNull();
		});
	}

	@Test
	void aFinishOfMoreJobsThanOneCallKeepsThemAll() {
		RedisDelayQueue queue = start(Retention.lastCompleted(10_000));
		scheduleDue(queue, "kept", 0, 2_500, "{}");
		promote(queue);
		List<ReservedJob> jobs = new ArrayList<>();
		while (jobs.size() < 2_500) {
			jobs.addAll(queue.reserve("kept", 1_000, null));
		}
		assertThat(queue.finishAndReserve(jobs, 0, null).stale()).isEmpty();
		assertThat(queue.completedJobs("kept", null, 1, false).total()).isEqualTo(2_500);
	}

	@Test
	void aHistoryRedisCannotWriteLeavesTheFinishDoneAndChangesNothingElse() {
		RedisDelayQueue queue = start(Retention.lastCompleted(10));
		KeySpace keys = new KeySpace(this.queues.namespace, queue.getBuckets());
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			// the order key of another type: the script fails at its first read
			connection.stringCommands().set(keys.completedOrder("kept"), "x".getBytes(StandardCharsets.UTF_8));
			scheduleDue(queue, "kept", 1, 1, "{}");
			promote(queue);
			ReservedJob job = queue.reserve("kept", 1, null).get(0);
			assertThat(queue.finish(job)).isTrue();
			assertThat(connection.keyCommands().exists(keys.completed("kept"))).as("records written").isFalse();
			connection.keyCommands().del(keys.completedOrder("kept"));
		}
		assertThat(queue.find("kept", id(1))).isEmpty();
	}

	@Test
	void retentionRulesNameTheFieldAndTheRule() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Retention(0, null, false, 0, null))
			.withMessage("retention must set completed or completedAge (finished jobs to keep), or failed or failedAge"
					+ " (DEAD jobs to keep at most), or both");
		assertThatIllegalArgumentException().isThrownBy(() -> new Retention(-1, null, false, 0, null))
			.withMessage("completed must be between 0 and 1000000, was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> Retention.completedWithin(Duration.ZERO))
			.withMessage("completedAge must be between PT0.001S and P365D, was PT0S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedisDelayQueue.builder(this.queues.connectionFactory())
				.retention("bad topic", Retention.lastCompleted(1)))
			.withMessageStartingWith("topic 'bad topic' may only contain");
	}

}
