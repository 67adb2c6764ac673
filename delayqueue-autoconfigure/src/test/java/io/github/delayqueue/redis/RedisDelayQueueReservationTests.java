package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.FinishResult;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.ReplayResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

class RedisDelayQueueReservationTests extends AbstractRedisDelayQueueTests {

	private ReservedJob reserveOne(String topic, Duration ttr) {
		List<ReservedJob> jobs = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.queue.reserve(topic, 1, ttr), (list) -> !list.isEmpty());
		return jobs.get(0);
	}

	private void schedule(String topic, String id, int maxAttempts, Duration ttr) {
		this.queue.schedule(new ScheduleRequest(topic, id, "{}".getBytes(), Duration.ZERO, null, ttr, maxAttempts,
				OnDuplicate.KEEP, Map.of(), null));
	}

	@Test
	void expiredReservationIsRedeliveredWithNextAttemptAndStaleTokenChangesNothing() {
		schedule("ttr", "1", 5, Duration.ofMillis(400));
		ReservedJob first = reserveOne("ttr", null);
		assertThat(first.attempt()).isEqualTo(1);
		assertThat(first.ttr()).isEqualTo(Duration.ofMillis(400));
		assertThat(first.reservedUntil()).isEqualTo(first.deliveredAt().plusMillis(400));

		ReservedJob second = reserveOne("ttr", null);
		assertThat(second.attempt()).isEqualTo(2);
		assertThat(second.token()).isNotEqualTo(first.token());
		assertThat(second.deliveredAt()).isAfterOrEqualTo(first.reservedUntil());

		Map<String, String> before = this.queues.bucketSnapshot();
		assertThat(this.queue.finish(first)).isFalse();
		assertThat(this.queue.touch(first, Duration.ofMinutes(5))).isEmpty();
		assertThat(this.queue.fail(first, Duration.ZERO, "late")).isEqualTo(FailResult.STALE);
		assertThat(this.queue.kill(first, "late")).isEqualTo(FailResult.STALE);
		assertThat(this.queue.release(first)).isFalse();
		assertThat(this.queues.bucketSnapshot()).as("Redis after stale calls").isEqualTo(before);

		assertThat(this.queue.finish(second)).isTrue();
	}

	@Test
	void theFirstReserveOfATopicRunsAScriptOnlyInTheBucketsWhoseReadyListHoldsEntries() {
		// the class's own queue runs a timer whose scripts would count too
		this.queue.stop();
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.namespace(this.queues.namespace + "-256").buckets(256).timerEnabled(false));
		await().atMost(Duration.ofSeconds(5)).until(queue::isSubscribed);
		// an instance without timers takes its number (the holder in its tokens) at its first
		// reservation, once: before the count
		queue.schedule(RedisDelayQueueLifecycleTests.request("warm-up", "w", "{}", Duration.ZERO));
		assertThat(queue.finish(queue.reserve("warm-up", 1, null).get(0))).isTrue();
		queue.schedule(RedisDelayQueueLifecycleTests.request("probed", "a", "{}", Duration.ZERO));
		queue.schedule(RedisDelayQueueLifecycleTests.request("probed", "b", "{}", Duration.ZERO));
		long before = scriptCalls(queue);
		assertThat(queue.reserve("probed", 10, null)).extracting(ReservedJob::id).containsExactlyInAnyOrder("a", "b");
		// one script per bucket holding a job, not one per bucket (256)
		assertThat(scriptCalls(queue) - before).isLessThanOrEqualTo(2);
	}

	@Test
	void aTakeOfFewerJobsThanTheReadyListHoldsLeavesTheRestFindable() {
		// one bucket and no timer: the jobs share one ready list, and nothing announces them
		// again, so a take that wrongly reported the list empty would hide the rest
		this.queue.stop();
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.namespace(this.queues.namespace + "-1").buckets(1).timerEnabled(false));
		for (String id : List.of("a", "b", "c", "d")) {
			queue.schedule(RedisDelayQueueLifecycleTests.request("short", id, "{}", Duration.ZERO));
		}
		ReservedJob first = queue.reserve("short", 1, null).get(0);
		ReservedJob second = queue.reserve("short", 1, null).get(0);
		FinishResult finished = queue.finishAndReserve(List.of(first, second), 1, null, null);
		assertThat(finished.next()).hasSize(1);
		assertThat(queue.reserve("short", 1, null)).hasSize(1);
		assertThat(List.of(first.id(), second.id(), finished.next().get(0).id())).doesNotHaveDuplicates();
		assertThat(queue.reserve("short", 1, null)).isEmpty();
	}

	private static long scriptCalls(RedisDelayQueue queue) {
		return calls(queue, "evalsha");
	}

	/** How many times Redis ran a command so far, scripts' commands included. */
	static long calls(RedisDelayQueue queue, String command) {
		try (var connection = queue.getConnectionFactory().getConnection()) {
			String stats = connection.serverCommands()
				.info("commandstats")
				.getProperty("cmdstat_" + command, "calls=0,");
			return Long.parseLong(stats.substring(stats.indexOf("calls=") + 6, stats.indexOf(',')));
		}
	}

	@Test
	void aFinishThatWantsMoreReadsNoReadyListThatThisInstanceKnowsToBeEmpty() throws InterruptedException {
		// one bucket and no timer: only this test's calls run scripts
		this.queue.stop();
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.namespace(this.queues.namespace + "-known").buckets(1).timerEnabled(false));
		await().atMost(Duration.ofSeconds(5)).until(queue::isSubscribed);
		assertThat(queue.awaitWork("marker", Duration.ZERO)).isFalse();
		queue.schedule(RedisDelayQueueLifecycleTests.request("known", "a", "{}", Duration.ZERO));
		// the schedule's echo on the channel comes before a later message: once the marker is
		// heard, no mark of the schedule is on its way any more
		try (var connection = queue.getConnectionFactory().getConnection()) {
			connection.publish(KeySpace.bytes(new KeySpace(this.queues.namespace + "-known", 1).channel()),
					KeySpace.bytes("r 0 marker"));
		}
		assertThat(queue.awaitWork("marker", Duration.ofSeconds(5))).isTrue();
		ReservedJob a = queue.reserve("known", 5, null).get(0);
		long lists = calls(queue, "lrange");
		assertThat(queue.finishAndReserve(List.of(a), 5, null, null).next()).isEmpty();
		assertThat(calls(queue, "lrange") - lists).as("ready-list reads of the finish").isZero();

		// once a job is announced in the bucket, the finish takes it
		queue.schedule(RedisDelayQueueLifecycleTests.request("known", "b", "{}", Duration.ZERO));
		ReservedJob b = queue.reserve("known", 1, null).get(0);
		queue.schedule(RedisDelayQueueLifecycleTests.request("known", "c", "{}", Duration.ZERO));
		assertThat(queue.finishAndReserve(List.of(b), 5, null, null).next()).extracting(ReservedJob::id)
			.containsExactly("c");
	}

	@Test
	void aFinishAndReserveChainAnnouncesNoDeadlineThatTheFinishedReservationsCameBefore() {
		this.queue.stop();
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.namespace(this.queues.namespace + "-chain").buckets(1).timerEnabled(false));
		for (int i = 0; i < 6; i++) {
			queue.schedule(RedisDelayQueueLifecycleTests.request("chain", "j" + i, "{}", Duration.ZERO));
		}
		ReservedJob job = queue.reserve("chain", 1, null).get(0);
		long announcements = calls(queue, "publish");
		for (int i = 0; i < 5; i++) {
			List<ReservedJob> next = queue.finishAndReserve(List.of(job), 1, null, null).next();
			assertThat(next).hasSize(1);
			job = next.get(0);
		}
		// the reserved index's head is read before the finish removes its job: each new deadline
		// comes after the one the timer knows already
		assertThat(calls(queue, "publish") - announcements).as("heads announced by the finishes").isZero();
	}

	@Test
	void aTakeReadsTheReservedHeadOnlyWhenItsDeadlineMayComeBeforeTheDelayQueuesHead() {
		this.queue.stop();
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.namespace(this.queues.namespace + "-heads").buckets(1).timerEnabled(false));
		// a DELAYED job due in a minute, before the take's deadline (TTR 5 minutes)
		queue.schedule(RedisDelayQueueLifecycleTests.request("heads", "later", "{}", Duration.ofMinutes(1)));
		queue.schedule(RedisDelayQueueLifecycleTests.request("heads", "now", "{}", Duration.ZERO));
		long heads = calls(queue, "zrange");
		long announcements = calls(queue, "publish");
		ReservedJob now = queue.reserve("heads", 1, Duration.ofMinutes(5)).get(0);
		assertThat(calls(queue, "zrange") - heads).as("index heads read by the take").isOne();
		assertThat(calls(queue, "publish") - announcements).as("announcements of the take").isZero();
		assertThat(queue.release(now)).isTrue();

		// a deadline before the delay queue's head: the reserved index is read too, and the
		// deadline is announced as the bucket's next event
		heads = calls(queue, "zrange");
		announcements = calls(queue, "publish");
		assertThat(queue.reserve("heads", 1, Duration.ofSeconds(1))).hasSize(1);
		assertThat(calls(queue, "zrange") - heads).as("index heads read by the take").isEqualTo(2);
		assertThat(calls(queue, "publish") - announcements).as("announcements of the take").isOne();
	}

	@Test
	void aFinishWhoseTakeEmptiesTheBucketLeavesNoWorkToAwait() throws InterruptedException {
		// one bucket, no timer: only the schedules mark it
		this.queue.stop();
		String namespace = this.queues.namespace + "-drained";
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.namespace(namespace).buckets(1).timerEnabled(false));
		await().atMost(Duration.ofSeconds(5)).until(queue::isSubscribed);
		assertThat(queue.awaitWork("marker", Duration.ZERO)).isFalse();
		for (String id : List.of("a", "b")) {
			queue.schedule(RedisDelayQueueLifecycleTests.request("drained", id, "{}", Duration.ZERO));
		}
		// the echo of the schedule's own announcement is handled before a later message: once
		// the marker arrives, no mark of the schedules is on its way any more
		try (var connection = queue.getConnectionFactory().getConnection()) {
			connection.publish(KeySpace.bytes(new KeySpace(namespace, 1).channel()), KeySpace.bytes("r 0 marker"));
		}
		assertThat(queue.awaitWork("marker", Duration.ofSeconds(5))).isTrue();

		ReservedJob first = queue.reserve("drained", 1, null).get(0);
		// b is left: the bucket stays marked
		assertThat(queue.awaitWork("drained", Duration.ZERO)).isTrue();
		FinishResult finished = queue.finishAndReserve(List.of(first), 5, null, null);
		assertThat(finished.next()).extracting(ReservedJob::id).containsExactly("b");
		// the take emptied the ready list: nothing to wait for, no reserve that finds nothing
		assertThat(queue.awaitWork("drained", Duration.ofMillis(100))).isFalse();
		assertThat(queue.finish(finished.next().get(0))).isTrue();
	}

	@Test
	void anAttemptsLimitGivenAtReserveIsStoredWithTheJobAndGovernsFailAndTtrExpiry() {
		schedule("limit", "1", 5, Duration.ofMinutes(1));
		List<ReservedJob> first = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.queue.reserve("limit", 1, null, 2), (list) -> !list.isEmpty());
		assertThat(first.get(0).maxAttempts()).isEqualTo(2);
		assertThat(this.queue.fail(first.get(0), Duration.ZERO, "first")).isEqualTo(FailResult.RETRYING);
		assertThat(this.queue.find("limit", "1")).get().extracting(JobInfo::maxAttempts).isEqualTo(2);
		// the second delivery is the last of 2: its TTR running out makes the job DEAD
		ReservedJob second = reserveOne("limit", Duration.ofMillis(200));
		assertThat(second.attempt()).isEqualTo(2);
		assertThat(second.maxAttempts()).isEqualTo(2);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.queue.find("limit", "1")).get()
				.extracting(JobInfo::state)
				.isEqualTo(JobState.DEAD));

		// a limit above the job's own lets the job live longer than it was scheduled with
		schedule("limit", "2", 1, Duration.ofMinutes(1));
		List<ReservedJob> higher = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.queue.reserve("limit", 1, null, 3), (list) -> !list.isEmpty());
		assertThat(this.queue.fail(higher.get(0), Duration.ZERO, "again")).isEqualTo(FailResult.RETRYING);
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.reserve("limit", 1, null, 0))
			.withMessageContaining("maxAttempts");
	}

	@Test
	void finishAndReserveFinishesABatchAndReservesTheNextJobsOfTheBucketInOneStep() {
		// six jobs of one bucket, in schedule order
		List<String> ids = new java.util.ArrayList<>();
		int bucket = this.queue.bucketOf("batch", "0");
		for (int i = 0; ids.size() < 6; i++) {
			if (this.queue.bucketOf("batch", String.valueOf(i)) == bucket) {
				ids.add(String.valueOf(i));
				schedule("batch", String.valueOf(i), 5, Duration.ofMinutes(1));
			}
		}
		List<ReservedJob> first = this.queue.reserve("batch", 2, null);
		assertThat(first).extracting(ReservedJob::id).containsExactlyElementsOf(ids.subList(0, 2));

		FinishResult result = this.queue.finishAndReserve(first, 3, Duration.ofSeconds(10));
		assertThat(result.stale()).isEmpty();
		assertThat(result.next()).extracting(ReservedJob::id).containsExactlyElementsOf(ids.subList(2, 5));
		assertThat(result.next()).allSatisfy((job) -> {
			assertThat(job.attempt()).isEqualTo(1);
			assertThat(job.ttr()).isEqualTo(Duration.ofSeconds(10));
			assertThat(this.queue.find("batch", job.id()).orElseThrow().state()).isEqualTo(JobState.RESERVED);
		});
		assertThat(result.next()).extracting(ReservedJob::token).doesNotHaveDuplicates()
			.doesNotContainAnyElementsOf(first.stream().map(ReservedJob::token).toList());
		assertThat(this.queue.find("batch", ids.get(0))).isEmpty();
		assertThat(this.queue.find("batch", ids.get(1))).isEmpty();
		QueueStats.TopicStats stats = this.queue.stats().topics().get("batch");
		assertThat(stats.reserved()).isEqualTo(3);
		assertThat(stats.ready()).isEqualTo(1);

		// a finished job, and the same job twice: one finish, two stale
		ReservedJob next = result.next().get(0);
		FinishResult again = this.queue.finishAndReserve(List.of(first.get(0), next, next), 0, null);
		assertThat(again.stale()).containsExactly(first.get(0), next);
		assertThat(again.next()).isEmpty();
		assertThat(this.queue.find("batch", next.id())).isEmpty();
		assertThat(this.queue.stats().topics().get("batch").reserved()).isEqualTo(2);
	}

	@Test
	void finishAndReserveRefusesBadArgumentsAndChangesNothing() {
		schedule("refuse", "1", 5, Duration.ofMinutes(1));
		schedule("other", "1", 5, Duration.ofMinutes(1));
		ReservedJob job = reserveOne("refuse", null);
		ReservedJob other = reserveOne("other", null);
		Map<String, String> before = this.queues.bucketSnapshot();
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.finishAndReserve(List.of(), 1, null))
			.withMessage("jobs must not be null or empty");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.finishAndReserve(List.of(job, other), 1, null))
			.withMessage("jobs must all be of one topic: jobs[0] is of 'refuse', jobs[1] of 'other'");
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.finishAndReserve(List.of(job), -1, null))
			.withMessage("max must be between 0 and 1000, was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.finishAndReserve(List.of(job), 1001, null))
			.withMessage("max must be between 0 and 1000, was 1001");
		assertThat(this.queues.bucketSnapshot()).isEqualTo(before);
	}

	@Test
	void touchExtendsTheDeadlineAndKeepsTheJob() throws InterruptedException {
		schedule("touch", "1", 5, Duration.ofMillis(500));
		ReservedJob job = reserveOne("touch", null);
		Instant extended = this.queue.touch(job, Duration.ofSeconds(30)).orElseThrow();
		assertThat(extended).isAfter(job.reservedUntil().plusSeconds(20));
		assertThat(this.queue.find("touch", "1").orElseThrow().reservedUntil()).isEqualTo(extended);
		// the original deadline passes: nothing is redelivered
		await().pollDelay(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3))
			.untilAsserted(() -> assertThat(this.queue.reserve("touch", 1, null)).isEmpty());
		JobInfo info = this.queue.find("touch", "1").orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.RESERVED);
		assertThat(info.attempt()).isEqualTo(1);
		assertThat(this.queue.finish(job)).isTrue();
	}

	@Test
	void reservationTtrOverridesTheJobsOwnAndTouchWithoutTtrUsesIt() {
		schedule("ttr-override", "1", 5, Duration.ofMinutes(10));
		ReservedJob job = reserveOne("ttr-override", Duration.ofSeconds(2));
		assertThat(job.ttr()).isEqualTo(Duration.ofSeconds(2));
		assertThat(job.reservedUntil()).isEqualTo(job.deliveredAt().plusSeconds(2));
		Instant touched = this.queue.touch(job, null).orElseThrow();
		assertThat(touched).isBeforeOrEqualTo(job.deliveredAt().plusSeconds(10));
	}

	@Test
	void failedJobIsRetriedAfterTheBackOffThenDiesAndIsReplayed() {
		schedule("retry", "1", 3, Duration.ofSeconds(30));
		ReservedJob first = reserveOne("retry", null);
		Instant beforeFail = first.deliveredAt();
		assertThat(this.queue.fail(first, Duration.ofMillis(700), "first failure")).isEqualTo(FailResult.RETRYING);
		JobInfo delayed = this.queue.find("retry", "1").orElseThrow();
		assertThat(delayed.state()).isEqualTo(JobState.DELAYED);
		assertThat(delayed.lastError()).isEqualTo("first failure");
		assertThat(delayed.dueAt()).isAfterOrEqualTo(beforeFail.plusMillis(700));

		ReservedJob second = reserveOne("retry", null);
		assertThat(second.attempt()).isEqualTo(2);
		assertThat(second.deliveredAt()).isAfterOrEqualTo(delayed.dueAt());
		assertThat(this.queue.fail(second, Duration.ZERO, "second failure")).isEqualTo(FailResult.RETRYING);

		ReservedJob third = reserveOne("retry", null);
		assertThat(third.attempt()).isEqualTo(3);
		assertThat(this.queue.fail(third, Duration.ofMillis(100), "third failure")).isEqualTo(FailResult.DEAD);
		JobInfo dead = this.queue.find("retry", "1").orElseThrow();
		assertThat(dead.state()).isEqualTo(JobState.DEAD);
		assertThat(dead.lastError()).isEqualTo("third failure");
		assertThat(dead.diedAt()).isNotNull();
		assertThat(this.queue.stats().topics().get("retry").dead()).isEqualTo(1);

		assertThat(this.queue.replayDeadJobs("retry", 10).count()).isEqualTo(1);
		JobInfo replayed = this.queue.find("retry", "1").orElseThrow();
		assertThat(replayed.state()).isEqualTo(JobState.READY);
		assertThat(replayed.attempt()).isZero();
		ReservedJob again = reserveOne("retry", null);
		assertThat(again.attempt()).isEqualTo(1);
		assertThat(this.queue.finish(again)).isTrue();
	}

	@Test
	void aReplayedJobKeepsItsLastErrorUntilItFinishesOnItsFirstAttemptOfItsNewLife() {
		schedule("second-life", "1", 1, Duration.ofSeconds(30));
		this.queue.kill(reserveOne("second-life", null), "boom");
		assertThat(this.queue.replayDead("second-life", "1")).isTrue();
		// rescheduled, then taken and given back: the attempt returns to 0, the error stays
		this.queue.reschedule("second-life", "1", Duration.ZERO);
		assertThat(this.queue.release(reserveOne("second-life", null))).isTrue();
		JobInfo released = this.queue.find("second-life", "1").orElseThrow();
		assertThat(released.attempt()).isZero();
		assertThat(released.lastError()).isEqualTo("boom");
		ReservedJob again = reserveOne("second-life", null);
		assertThat(again.attempt()).isEqualTo(1);
		assertThat(this.queue.find("second-life", "1").orElseThrow().lastError()).isEqualTo("boom");
		assertThat(this.queue.finish(again)).isTrue();
		assertThat(this.queue.find("second-life", "1")).isEmpty();
		// the same id scheduled again starts without an error
		schedule("second-life", "1", 1, Duration.ofSeconds(30));
		assertThat(this.queue.find("second-life", "1").orElseThrow().lastError()).isNull();
		// (the invariant check after each test: no error is kept for a job that is gone)
	}

	@Test
	void replayNamesTheFirstHundredJobsItReplayedAndCountsAll() {
		List<ScheduleRequest> requests = new java.util.ArrayList<>();
		for (int i = 0; i < 150; i++) {
			requests.add(new ScheduleRequest("graves", "g-" + i, "{}".getBytes(), Duration.ZERO, null, null, null,
					OnDuplicate.KEEP, Map.of(), null));
		}
		this.queue.scheduleAll(requests);
		List<ReservedJob> reserved = this.queue.reserve("graves", 150, Duration.ofHours(1));
		assertThat(reserved).hasSize(150);
		reserved.forEach((job) -> this.queue.kill(job, "boom"));

		ReplayResult few = this.queue.replayDeadJobs("graves", 3);
		assertThat(few.count()).isEqualTo(3);
		assertThat(few.ids()).hasSize(3).doesNotHaveDuplicates().allMatch((id) -> id.startsWith("g-"));
		few.ids().forEach((id) -> assertThat(state("graves", id)).isEqualTo(JobState.READY));

		ReplayResult rest = this.queue.replayDeadJobs("graves", 1_000);
		assertThat(rest.count()).isEqualTo(147);
		assertThat(rest.ids()).hasSize(ReplayResult.MAX_IDS)
			.doesNotHaveDuplicates()
			.doesNotContainAnyElementsOf(few.ids());
		rest.ids().forEach((id) -> assertThat(state("graves", id)).isEqualTo(JobState.READY));
		assertThat(this.queue.stats().topics().get("graves").dead()).isZero();
		assertThat(this.queue.replayDeadJobs("graves", 10)).isEqualTo(new ReplayResult(0, List.of()));
	}

	private JobState state(String topic, String id) {
		return this.queue.find(topic, id).orElseThrow().state();
	}

	@Test
	void jobWhoseTtrRunsOutOnItsLastAttemptIsDead() {
		schedule("ttr-dead", "1", 1, Duration.ofMillis(300));
		reserveOne("ttr-dead", null);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.queue.find("ttr-dead", "1").orElseThrow().state()).isEqualTo(JobState.DEAD));
		assertThat(this.queue.find("ttr-dead", "1").orElseThrow().lastError()).contains("the reservation ran out (TTR) on attempt 1 of 1");
		assertThat(this.queue.replayDead("ttr-dead", "1")).isTrue();
		assertThat(this.queue.replayDead("ttr-dead", "1")).as("no longer dead").isFalse();
	}

	@Test
	void killedJobIsDeadAtOnceWhateverItsAttempts() {
		schedule("kill", "1", 10, null);
		ReservedJob job = reserveOne("kill", null);
		assertThat(this.queue.kill(job, "payload cannot be read")).isEqualTo(FailResult.DEAD);
		assertThat(this.queue.find("kill", "1").orElseThrow().lastError()).isEqualTo("payload cannot be read");
	}

	@Test
	void releasedJobIsReadyAtOnceWithoutCountingTheAttempt() {
		schedule("release", "1", 2, Duration.ofMinutes(10));
		ReservedJob job = reserveOne("release", null);
		assertThat(this.queue.release(job)).isTrue();
		JobInfo info = this.queue.find("release", "1").orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.READY);
		assertThat(info.attempt()).isZero();
		assertThat(reserveOne("release", null).attempt()).isEqualTo(1);
	}

	@Test
	void aReleaseOfMoreJobsThanOneScriptCallTakesKeepsTheirOrderAndPlacesARepeatedOneFirstGiven() {
		this.queue.stop();
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.namespace(this.queues.namespace + "-1").buckets(1).timerEnabled(false));
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 2_500; i++) {
			requests.add(RedisDelayQueueLifecycleTests.request("back", String.format("j%04d", i), "{}", Duration.ZERO));
		}
		queue.scheduleAll(requests);
		List<ReservedJob> held = queue.reserve("back", 2_500, null);
		assertThat(held).hasSize(2_500);
		// the first given again at the end: it goes back once, where it was first given
		List<ReservedJob> given = new ArrayList<>(held);
		given.add(held.get(0));
		assertThat(queue.release(given)).isEqualTo(2_500);
		assertThat(queue.reserve("back", 2_500, null)).extracting(ReservedJob::id)
			.containsExactlyElementsOf(held.stream().map(ReservedJob::id).toList());
	}

	@Test
	void aBucketThatCannotTakeItsJobsBackDoesNotKeepTheOtherBucketsJobs() {
		this.queue.stop();
		RedisDelayQueue queue = this.queues
			.start((builder) -> builder.namespace(this.queues.namespace + "-4").buckets(4).timerEnabled(false));
		for (int i = 0; i < 20; i++) {
			queue.schedule(RedisDelayQueueLifecycleTests.request("back", "j" + i, "{}", Duration.ZERO));
		}
		List<ReservedJob> held = queue.reserve("back", 20, null);
		assertThat(held).hasSize(20);
		int broken = queue.bucketOf("back", held.get(0).id());
		byte[] jobs = new KeySpace(this.queues.namespace + "-4", 4).jobs(broken);
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			byte[] dump = connection.keyCommands().dump(jobs);
			connection.keyCommands().del(jobs);
			// a bucket whose script fails (here: its jobs hash is not a hash)
			connection.stringCommands().set(jobs, "x".getBytes(StandardCharsets.UTF_8));
			assertThatExceptionOfType(DelayQueueException.class).isThrownBy(() -> queue.release(held));
			connection.keyCommands().del(jobs);
			connection.keyCommands().restore(jobs, 0, dump);
		}
		for (ReservedJob job : held) {
			JobState state = queue.find("back", job.id()).orElseThrow().state();
			assertThat(state).as(job.id())
				.isEqualTo((queue.bucketOf("back", job.id()) == broken) ? JobState.RESERVED : JobState.READY);
		}
		assertThat(queue.release(held.stream().filter((job) -> queue.bucketOf("back", job.id()) == broken).toList()))
			.isPositive();
		assertThat(queue.reserve("back", 20, null)).hasSize(20);
	}

	@Test
	void rescheduleMovesWaitingJobsOnlyWaiting() {
		this.queue.schedule(RedisDelayQueueLifecycleTests.request("move", "1", "x", Duration.ofMinutes(10)));
		assertThat(this.queue.reschedule("move", "1", Duration.ZERO)).isEqualTo(io.github.delayqueue.core.RescheduleResult.RESCHEDULED);
		assertThat(this.queue.find("move", "1").orElseThrow().state()).isEqualTo(JobState.READY);
		assertThat(this.queue.rescheduleAt("move", "1", Instant.now().plusSeconds(3600)))
			.isEqualTo(io.github.delayqueue.core.RescheduleResult.RESCHEDULED);
		assertThat(this.queue.find("move", "1").orElseThrow().state()).isEqualTo(JobState.DELAYED);
		assertThat(this.queue.reserve("move", 10, null)).as("old ready entry is a tombstone").isEmpty();
		assertThat(this.queue.reschedule("move", "missing", Duration.ZERO)).isEqualTo(io.github.delayqueue.core.RescheduleResult.NOT_FOUND);
		this.queue.reschedule("move", "1", Duration.ZERO);
		ReservedJob job = reserveOne("move", null);
		assertThat(this.queue.reschedule("move", "1", Duration.ZERO)).isEqualTo(io.github.delayqueue.core.RescheduleResult.NOT_WAITING);
		assertThat(this.queue.finish(job)).isTrue();
	}

}
