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

	private RedisDelayQueue start(int buckets, UnaryOperator<RedisDelayQueue.Builder> customizer) {
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

	private static long ready(RedisDelayQueue queue, String topic) {
		var stats = queue.stats().topics().get(topic);
		return (stats != null) ? stats.ready() : 0;
	}

	@Test
	void aThousandJobsOfMixedPrioritiesDueAtOnceReachOneConsumerHighestFirstAndFifoWithinOne() {
		RedisDelayQueue queue = start(1);
		List<Integer> mixed = mixedPriorities(1000, 42);
		Map<String, Integer> priorities = new HashMap<>();
		// due one millisecond apart (the order FIFO means), all within the same timer step's reach
		Instant base = Instant.now().plusMillis(1500);
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			priorities.put("j" + i, mixed.get(i));
			requests.add(dueAt("mixed", "j" + i, mixed.get(i), base.plusMillis(i)));
		}
		queue.scheduleAll(requests);
		// the timer moves them to the ready lists; no consumer takes one before all are READY
		await().atMost(Duration.ofSeconds(20)).until(() -> ready(queue, "mixed") == 1000);

		List<ReservedJob> taken = new ArrayList<>();
		List<ReservedJob> batch;
		int[] sizes = { 1, 7, 16, 50 };
		int call = 0;
		while (!(batch = queue.reserve("mixed", sizes[call++ % sizes.length], null)).isEmpty()) {
			taken.addAll(batch);
		}
		assertThat(taken).hasSize(1000);
		assertPriorityOrderThenFifo(taken, priorities);
		assertThat(taken.get(0).id()).isEqualTo("j" + mixed.indexOf(9));
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
		List<Integer> mixed = mixedPriorities(1000, 4);
		Map<String, Integer> priorities = new HashMap<>();
		Instant base = Instant.now().plusMillis(1500);
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			priorities.put("j" + i, mixed.get(i));
			requests.add(dueAt("spread", "j" + i, mixed.get(i), base.plusMillis(i)));
		}
		queue.scheduleAll(requests);
		await().atMost(Duration.ofSeconds(20)).until(() -> ready(queue, "spread") == 1000);

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
			.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("a", 5),
					org.assertj.core.groups.Tuple.tuple("b", 9), org.assertj.core.groups.Tuple.tuple("c", 0));
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
		long lists = calls(queue, "lrange");
		long lengths = calls(queue, "llen");
		taken.addAll(queue.reserve("plain", 1, null));
		assertThat(calls(queue, "lrange") - lists).as("list reads of a take").isOne();
		assertThat(calls(queue, "llen") - lengths).as("lengths read by a take").isOne();
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

	@Test
	void findStatsAndTheKeptRecordOfAFinishedJobShowItsPriority() {
		RedisDelayQueue queue = start(1, (builder) -> builder.timerEnabled(false)
			.retention("kept", new Retention(10, null, false)));
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

	/** How many times Redis ran a command so far, scripts' commands included. */
	private static long calls(RedisDelayQueue queue, String command) {
		try (var connection = queue.getConnectionFactory().getConnection()) {
			String stats = connection.serverCommands()
				.info("commandstats")
				.getProperty("cmdstat_" + command, "calls=0,");
			return Long.parseLong(stats.substring(stats.indexOf("calls=") + 6, stats.indexOf(',')));
		}
	}

}
