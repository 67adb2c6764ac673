package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;

import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.Retention;
import io.github.delayqueue.core.ScheduleRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Priorities within a topic: among the READY jobs of a topic in one bucket a higher priority is
 * handed out first, FIFO within one priority; retries, releases, replays and reschedules keep a
 * job's priority; a topic that uses the default priority alone stores and reads exactly what it
 * did before priorities existed. Each test ends with the queue's invariant (which checks the
 * lists of every priority and the sentinel).
 */
class RedisDelayQueuePriorityTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private RedisDelayQueue start(int buckets) {
		return start(buckets, UnaryOperator.identity());
	}

	private RedisDelayQueue start(int buckets, UnaryOperator<RedisDelayQueueBuilder> customizer) {
		return this.queues.start((builder) -> customizer.apply(builder.buckets(buckets)));
	}

	private static ScheduleRequest job(String topic, String id, Integer priority, Duration delay) {
		return new ScheduleRequest(topic, id, ("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8), delay, null,
				null, null, OnDuplicate.KEEP, Map.of(), priority);
	}

	private static ScheduleRequest dueAt(String topic, String id, int priority, Instant dueAt) {
		return new ScheduleRequest(topic, id, "{}".getBytes(StandardCharsets.UTF_8), null, dueAt, null, null,
				OnDuplicate.KEEP, Map.of(), priority);
	}

	/** The priorities of 1,000 jobs: every level, in a shuffled order (seeded). */
	private static List<Integer> mixedPriorities(int count, long seed) {
		List<Integer> priorities = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			priorities.add(i % 10);
		}
		Collections.shuffle(priorities, new Random(seed));
		return priorities;
	}

	/** The job number of an id "j<number>". */
	private static int number(String id) {
		return Integer.parseInt(id.substring(1));
	}

	private static void assertPriorityOrderThenFifo(List<ReservedJob> taken, Map<String, Integer> priorities) {
		for (int k = 1; k < taken.size(); k++) {
			ReservedJob before = taken.get(k - 1);
			ReservedJob after = taken.get(k);
			int p = priorities.get(before.id());
			int q = priorities.get(after.id());
			assertThat(q).as("priority of %s (taken after %s of priority %d)", after.id(), before.id(), p)
				.isLessThanOrEqualTo(p);
			if (p == q) {
				assertThat(number(after.id())).as("FIFO within priority %d: %s after %s", p, after.id(), before.id())
					.isGreaterThan(number(before.id()));
			}
		}
	}

	/**
	 * Schedules 1,000 jobs of every priority, in a shuffled order, due one millisecond apart
	 * (the order FIFO means) from 1.5 s on, and waits until the timer made them all READY: no
	 * consumer takes one before. Returns each id's priority.
	 */
	private static Map<String, Integer> scheduleMixedAndAwaitReady(RedisDelayQueue queue, String topic, long seed) {
		List<Integer> mixed = mixedPriorities(1000, seed);
		Map<String, Integer> priorities = new HashMap<>();
		Instant base = Instant.now().plusMillis(1500);
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			priorities.put("j" + i, mixed.get(i));
			requests.add(dueAt(topic, "j" + i, mixed.get(i), base.plusMillis(i)));
		}
		queue.scheduleAll(requests);
		await().atMost(Duration.ofSeconds(20)).until(() -> ready(queue, topic) == 1000);
		return priorities;
	}

	private static long ready(RedisDelayQueue queue, String topic) {
		var stats = queue.stats().topics().get(topic);
		return (stats != null) ? stats.ready() : 0;
	}

	@Test
	void aThousandJobsOfMixedPrioritiesDueAtOnceReachOneConsumerHighestFirstAndFifoWithinOne() {
		RedisDelayQueue queue = start(1);
		Map<String, Integer> priorities = scheduleMixedAndAwaitReady(queue, "mixed", 42);

		List<ReservedJob> taken = new ArrayList<>();
		List<ReservedJob> batch;
		int[] sizes = { 1, 7, 16, 50 };
		int call = 0;
		while (!(batch = queue.reserve("mixed", sizes[call++ % sizes.length], null)).isEmpty()) {
			taken.addAll(batch);
		}
		assertThat(taken).hasSize(1000);
		assertPriorityOrderThenFifo(taken, priorities);
		// the first job of the highest priority comes first
		assertThat(taken.get(0).id()).isEqualTo("j" + mixedPriorities(1000, 42).indexOf(9));
		taken.forEach(queue::finish);
	}

	@Test
	void jobsScheduledReadyOneAtATimeAndInBatchesAreTakenInPriorityOrder() {
		RedisDelayQueue queue = start(1, (builder) -> builder.timerEnabled(false));
		List<Integer> mixed = mixedPriorities(300, 7);
		Map<String, Integer> priorities = new HashMap<>();
		List<ScheduleRequest> batch = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			priorities.put("j" + i, mixed.get(i));
			ScheduleRequest request = job("now", "j" + i, mixed.get(i), Duration.ZERO);
			if (i < 150) {
				// the one-job path of schedule.lua
				queue.schedule(request);
			}
			else {
				batch.add(request);
			}
		}
		queue.scheduleAll(batch);
		List<ReservedJob> taken = new ArrayList<>();
		List<ReservedJob> next;
		while (!(next = queue.reserve("now", 13, null)).isEmpty()) {
			taken.addAll(next);
		}
		assertThat(taken).hasSize(300);
		assertPriorityOrderThenFifo(taken, priorities);
		taken.forEach(queue::finish);
	}

	/**
	 * Acceptance 1, across buckets: 1,000 jobs in 16 buckets, four consumers at once. Within a
	 * bucket, the take order (its fencing tokens count the bucket's takes) is priority order,
	 * FIFO within one: no job starts while a job of a higher priority is READY in its bucket.
	 * Across buckets nothing is ordered: each bucket keeps its own lists, and consumers visit the
	 * buckets in turn.
	 */
	@Test
	void withSixteenBucketsAndFourConsumersNoJobStartsWhileAHigherOneIsReadyInItsBucket() throws Exception {
		RedisDelayQueue queue = start(16);
		Map<String, Integer> priorities = scheduleMixedAndAwaitReady(queue, "spread", 4);

		ConcurrentLinkedQueue<ReservedJob> taken = new ConcurrentLinkedQueue<>();
		ExecutorService consumers = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int c = 0; c < 4; c++) {
				int size = 1 + c * 3;
				done.add(consumers.submit(() -> {
					List<ReservedJob> jobs;
					while (!(jobs = queue.reserve("spread", size, null)).isEmpty()) {
						taken.addAll(jobs);
						jobs.forEach(queue::finish);
					}
				}));
			}
			for (Future<?> future : done) {
				future.get();
			}
		}
		finally {
			consumers.shutdownNow();
		}
		assertThat(taken).hasSize(1000);
		KeySpace keys = new KeySpace(this.queues.namespace, 16);
		Map<Integer, List<ReservedJob>> byBucket = new HashMap<>();
		taken.forEach((job) -> byBucket.computeIfAbsent(keys.bucketOf("spread", job.id()), (b) -> new ArrayList<>())
			.add(job));
		assertThat(byBucket).hasSizeGreaterThan(8);
		byBucket.values().forEach((jobs) -> {
			jobs.sort(Comparator.comparingLong(ReservedJob::token));
			assertPriorityOrderThenFifo(jobs, priorities);
		});
	}

	@Test
	void retriesReleasesReschedulesAndReplaysKeepTheJobsPriority() {
		RedisDelayQueue queue = start(1, (builder) -> builder.timerEnabled(false));
		queue.schedule(job("keep", "high", 8, Duration.ZERO));
		queue.schedule(job("keep", "low", 2, Duration.ZERO));
		queue.schedule(job("keep", "mid", null, Duration.ZERO));
		assertThat(queue.find("keep", "high")).get().extracting(JobInfo::priority).isEqualTo(8);
		assertThat(queue.find("keep", "mid")).get().extracting(JobInfo::priority).isEqualTo(5);

		// a retry with no back-off is READY again at once, before the default and low ones
		ReservedJob high = queue.reserve("keep", 1, null).get(0);
		assertThat(high.id()).isEqualTo("high");
		assertThat(queue.fail(high, Duration.ZERO, "again")).isEqualTo(FailResult.RETRYING);
		high = queue.reserve("keep", 1, null).get(0);
		assertThat(high.id()).isEqualTo("high");
		assertThat(high.attempt()).isEqualTo(2);
		// a release puts it back at the front of its priority's list
		assertThat(queue.release(high)).isTrue();
		assertThat(queue.reserve("keep", 1, null).get(0).id()).isEqualTo("high");

		// the low one, released, stays behind the default one
		ReservedJob mid = queue.reserve("keep", 1, null).get(0);
		assertThat(mid.id()).isEqualTo("mid");
		assertThat(queue.release(mid)).isTrue();
		assertThat(queue.reserve("keep", 2, null)).extracting(ReservedJob::id).containsExactly("mid", "low");

		// DEAD and replayed: still of its priority
		queue.schedule(job("dead", "a", null, Duration.ZERO));
		queue.schedule(job("dead", "b", 9, Duration.ZERO));
		queue.schedule(job("dead", "c", 0, Duration.ZERO));
		List<ReservedJob> all = queue.reserve("dead", 3, null);
		assertThat(all).extracting(ReservedJob::id).containsExactly("b", "a", "c");
		all.forEach((job) -> queue.kill(job, "dead"));
		assertThat(queue.deadJobs("dead", null, 10, false).jobs()).extracting(JobInfo::id, JobInfo::priority)
			.containsExactlyInAnyOrder(tuple("a", 5),
					tuple("b", 9), tuple("c", 0));
		assertThat(queue.replayDeadJobs("dead", 10).count()).isEqualTo(3);
		assertThat(queue.reserve("dead", 3, null)).extracting(ReservedJob::id).containsExactly("b", "a", "c");

		// rescheduled to now: READY in its priority's list
		queue.schedule(job("moved", "x", 1, Duration.ofHours(1)));
		queue.schedule(job("moved", "y", null, Duration.ZERO));
		queue.reschedule("moved", "x", Duration.ZERO);
		assertThat(queue.find("moved", "x")).get().extracting(JobInfo::state, JobInfo::priority)
			.containsExactly(JobState.READY, 1);
		assertThat(queue.reserve("moved", 2, null)).extracting(ReservedJob::id).containsExactly("y", "x");
	}

	@Test
	void aJobWhosePriorityIsReplacedIsTakenAtItsNewPriorityOnce() {
		RedisDelayQueue queue = start(1, (builder) -> builder.timerEnabled(false));
		queue.schedule(job("swap", "a", null, Duration.ZERO));
		queue.schedule(job("swap", "b", 1, Duration.ZERO));
		// b replaced, now of priority 9: its entry in the list of priority 1 is a tombstone
		queue.schedule(new ScheduleRequest("swap", "b", "{}".getBytes(StandardCharsets.UTF_8), Duration.ZERO, null,
				null, null, OnDuplicate.REPLACE, Map.of(), 9));
		assertThat(queue.reserve("swap", 5, null)).extracting(ReservedJob::id).containsExactly("b", "a");
		assertThat(queue.reserve("swap", 5, null)).isEmpty();
	}

	@Test
	void cancelledJobsOfOtherPrioritiesLeaveTombstonesThatATakeClearsWithTheSentinel() {
		RedisDelayQueue queue = start(1, (builder) -> builder.timerEnabled(false));
		for (int i = 0; i < 20; i++) {
			queue.schedule(job("gone", "j" + i, i % 3 * 4, Duration.ZERO));
		}
		for (int i = 0; i < 20; i += 2) {
			queue.cancel("gone", "j" + i);
		}
		List<ReservedJob> taken = queue.reserve("gone", 100, null);
		assertThat(taken).extracting(ReservedJob::id)
			.containsExactly("j5", "j11", "j17", "j1", "j7", "j13", "j19", "j3", "j9", "j15");
		taken.forEach(queue::finish);
		// nothing is left: no list and no sentinel (the invariant after the test checks both)
		assertThat(this.queues.bucketSnapshot().keySet()).noneMatch((key) -> key.contains("ready:"));
	}

	@Test
	void aTopicOfTheDefaultPriorityAloneStoresNoByteAndReadsNoListForPriorities() {
		RedisDelayQueue queue = start(1, (builder) -> builder.timerEnabled(false));
		queue.schedule(job("plain", "a", null, Duration.ZERO));
		queue.schedule(job("plain", "b", JobConstraints.DEFAULT_PRIORITY, Duration.ZERO));
		// the record starts with the state and the attempt, as before priorities
		assertThat(this.queues.jobRecord("plain:a")).startsWith("R,");
		assertThat(this.queues.jobRecord("plain:b")).startsWith("R,");
		assertThat(this.queues.bucketSnapshot().keySet()).filteredOn((key) -> key.contains("ready:"))
			.containsExactly("{" + this.queues.namespace + ":0}:ready:plain");
		queue.schedule(job("plain", "d", null, Duration.ZERO));
		// (the first reserve of a topic also probes which buckets have entries)
		List<ReservedJob> taken = new ArrayList<>(queue.reserve("plain", 1, null));
		long lists = RedisDelayQueueReservationTests.calls(queue, "lrange");
		long lengths = RedisDelayQueueReservationTests.calls(queue, "llen");
		taken.addAll(queue.reserve("plain", 1, null));
		assertThat(RedisDelayQueueReservationTests.calls(queue, "lrange") - lists).as("list reads of a take").isOne();
		assertThat(RedisDelayQueueReservationTests.calls(queue, "llen") - lengths).as("lengths read by a take").isOne();
		// a job of another priority costs one letter, and is taken first
		queue.schedule(job("plain", "c", 7, Duration.ZERO));
		assertThat(this.queues.jobRecord("plain:c")).startsWith("Rh,");
		List<ReservedJob> rest = queue.reserve("plain", 5, null);
		assertThat(rest).extracting(ReservedJob::id).containsExactly("c", "d");
		taken.addAll(rest);
		assertThat(taken).extracting(ReservedJob::id).containsExactly("a", "b", "c", "d");
		taken.forEach(queue::finish);
	}

	@Test
	void aPriorityOutOfRangeIsRefusedNamingTheFieldAndNothingIsWritten() {
		RedisDelayQueue queue = start(1);
		Map<String, String> before = this.queues.bucketSnapshot();
		assertThatIllegalArgumentException().isThrownBy(() -> job("bad", "a", 10, Duration.ZERO))
			.withMessage("priority must be between 0 (lowest) and 9 (highest), was 10");
		assertThatIllegalArgumentException().isThrownBy(() -> job("bad", "a", -1, Duration.ZERO))
			.withMessageContaining("priority must be between 0 (lowest) and 9 (highest), was -1");
		assertThat(this.queues.bucketSnapshot()).isEqualTo(before);
	}

	@Test
	void repairPutsBackALostSentinelAndListSoThatTheJobsAreTakenAgain() {
		RedisDelayQueue queue = start(1, (builder) -> builder.timerEnabled(false));
		queue.schedule(job("lost", "a", null, Duration.ZERO));
		queue.schedule(job("lost", "b", 9, Duration.ZERO));
		queue.schedule(job("lost", "c", 2, Duration.ZERO));
		String prefix = "{" + this.queues.namespace + ":0}:";
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			// the sentinel and the list of priority 2 are lost (a failure the scripts rule out)
			connection.listCommands().lPop(KeySpace.bytes(prefix + "ready:lost"));
			connection.keyCommands().del(KeySpace.bytes(prefix + "ready:lost:2"));
		}
		assertThat(queue.repair(false)).extracting(RepairResult::reindexed).isEqualTo(2L);
		RepairResult repaired = queue.repair(true);
		assertThat(repaired.reindexed()).isEqualTo(2L);
		assertThat(queue.repair(false).reindexed()).isZero();
		assertThat(queue.reserve("lost", 5, null)).extracting(ReservedJob::id).containsExactly("b", "a", "c");
	}

	/**
	 * A guard compaction whose window runs out on a list of a higher priority before it reaches
	 * the topic's first list: the marker must not go on naming the list it emptied, or the first
	 * list would look non-empty and a new job of the topic would not be announced.
	 */
	@Test
	void aCompactionThatEmptiesAListOfAnotherPriorityRewritesTheMarkerEvenWhenItsWindowEndsThere() {
		RedisDelayQueue queue = start(1, (builder) -> builder.timerEnabled(false));
		List<ScheduleRequest> ready = new ArrayList<>();
		List<ScheduleRequest> later = new ArrayList<>();
		for (int i = 0; i < 10_000; i++) {
			ready.add(job("window", "p" + i, 9, Duration.ZERO));
			later.add(new ScheduleRequest("window", "p" + i, "{}".getBytes(StandardCharsets.UTF_8), Duration.ofHours(5),
					null, null, null, OnDuplicate.REPLACE, Map.of(), 9));
		}
		queue.scheduleAll(ready);
		// replaced by DELAYED ones: the list of priority 9 holds 10,000 tombstones, exactly the
		// window of one compaction
		queue.scheduleAll(later);
		TimerSteps.promote(queue, 0, true);
		assertThat(this.queues.bucketSnapshot().keySet()).noneMatch((key) -> key.contains("ready:window"));
		queue.schedule(job("window", "new", null, Duration.ZERO));
		assertThat(queue.reserve("window", 1, null)).extracting(ReservedJob::id).containsExactly("new");
	}

	@Test
	void aRepairThatPutsBackAJobOfAnotherPriorityWakesAWaitingConsumer() throws InterruptedException {
		RedisDelayQueue queue = start(1, (builder) -> builder.timerEnabled(false));
		await().atMost(Duration.ofSeconds(5)).until(queue::isSubscribed);
		queue.schedule(job("lost7", "a", 7, Duration.ZERO));
		// the schedule's announcement is heard before the lists go
		assertThat(queue.awaitWork("lost7", Duration.ofSeconds(5))).isTrue();
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			String prefix = "{" + this.queues.namespace + ":0}:";
			connection.keyCommands().del(KeySpace.bytes(prefix + "ready:lost7"), KeySpace.bytes(prefix + "ready:lost7:7"));
		}
		// the consumer finds nothing, and waits for an announcement
		assertThat(queue.reserve("lost7", 1, null)).isEmpty();
		assertThat(queue.awaitWork("lost7", Duration.ZERO)).isFalse();
		assertThat(queue.repair(true).reindexed()).isEqualTo(2);
		assertThat(queue.awaitWork("lost7", Duration.ofSeconds(5))).isTrue();
		assertThat(queue.reserve("lost7", 1, null)).extracting(ReservedJob::id).containsExactly("a");
	}

	@Test
	void aRecordWhosePriorityLetterIsNotOneThatTheScriptsWriteIsRefusedAsUnreadable() {
		RedisDelayQueue queue = start(1, (builder) -> builder.timerEnabled(false));
		queue.schedule(job("odd", "f", null, Duration.ofHours(1)));
		queue.schedule(job("odd", "k", null, Duration.ofHours(1)));
		String record = this.queues.jobRecord("odd:f");
		// 'f' would be the default priority, which has no letter; 'k' would be priority 10
		this.queues.overwriteJobRecord("odd:f", "Df" + record.substring(1));
		this.queues.overwriteJobRecord("odd:k", "Dk" + record.substring(1));
		assertThatThrownBy(() -> queue.reschedule("odd", "f", Duration.ZERO)).hasMessageContaining("odd:f");
		assertThatThrownBy(() -> queue.reschedule("odd", "k", Duration.ZERO)).hasMessageContaining("odd:k");
		assertThat(queue.repair(false).unreadable()).isEqualTo(2);
		this.queues.skipInvariant("two records are written in a format the scripts refuse, on purpose");
	}

	@Test
	void findStatsAndTheKeptRecordOfAFinishedJobShowItsPriority() {
		RedisDelayQueue queue = start(1, (builder) -> builder.timerEnabled(false)
			.retention("kept", new Retention(10, null, false, 0, null)));
		queue.schedule(job("kept", "a", 3, Duration.ZERO));
		queue.schedule(job("kept", "b", null, Duration.ZERO));
		assertThat(queue.stats().topics().get("kept").ready()).isEqualTo(2);
		assertThat(queue.stats().topics().get("kept").overdueSince()).isNotNull();
		List<ReservedJob> jobs = queue.reserve("kept", 2, null);
		assertThat(jobs).extracting(ReservedJob::id).containsExactly("b", "a");
		jobs.forEach(queue::finish);
		assertThat(queue.find("kept", "a")).get().extracting(JobInfo::state, JobInfo::priority, JobInfo::attempt)
			.containsExactly(JobState.COMPLETED, 3, 1);
		assertThat(queue.find("kept", "b")).get().extracting(JobInfo::priority).isEqualTo(5);
	}

}
