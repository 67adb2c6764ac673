package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.delayqueue.core.DeadJobPage;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.OnDuplicate;
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
 * Failed-job retention: a topic that limits its DEAD jobs keeps those among its last
 * {@code failed} deaths and those that died within {@code failedAge}, whatever the path that
 * killed them (a failure, a kill, a last attempt's TTR), and deletes the rest as jobs die.
 */
class RedisDelayQueueFailedRetentionTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private final List<Long> trimmed = new ArrayList<>();

	private RedisDelayQueue start(Retention retention) {
		return start(retention, 16, 1_000);
	}

	private RedisDelayQueue start(Retention retention, int buckets, int batchSize) {
		return this.queues.start((builder) -> builder.timerEnabled(false)
			.buckets(buckets)
			.batchSize(batchSize)
			.retention("kept", retention)
			.observer(new DelayQueueObserver() {
				@Override
				public void deadTrimmed(String topic, long count) {
					synchronized (RedisDelayQueueFailedRetentionTests.this.trimmed) {
						RedisDelayQueueFailedRetentionTests.this.trimmed.add(count);
					}
				}
			}));
	}

	private long trimmedInAll() {
		synchronized (this.trimmed) {
			return this.trimmed.stream().mapToLong(Long::longValue).sum();
		}
	}

	/** Schedules jobs due now, one attempt each, with ids whose byte order is their number's. */
	private static void scheduleDue(RedisDelayQueue queue, String topic, int from, int count, Duration ttr) {
		List<ScheduleRequest> requests = new ArrayList<>(count);
		for (int i = from; i < from + count; i++) {
			requests.add(new ScheduleRequest(topic, id(i), "{}".getBytes(StandardCharsets.UTF_8), Duration.ZERO, null,
					ttr, 1, OnDuplicate.KEEP, Map.of(), null));
		}
		queue.scheduleAll(requests);
		promote(queue);
	}

	private static String id(int i) {
		return String.format("job-%06d", i);
	}

	private static void promote(RedisDelayQueue queue) {
		for (int b = 0; b < queue.getBuckets(); b++) {
			TimerSteps.promote(queue, b, false);
		}
	}

	/** Reserves every READY job of a topic, sorted by id. */
	private static List<ReservedJob> reserveAll(RedisDelayQueue queue, String topic, int count) {
		List<ReservedJob> all = new ArrayList<>(count);
		while (all.size() < count) {
			List<ReservedJob> jobs = queue.reserve(topic, Math.min(500, count - all.size()), null);
			assertThat(jobs).as("READY jobs left to reserve").isNotEmpty();
			all.addAll(jobs);
		}
		all.sort(Comparator.comparing(ReservedJob::id));
		return all;
	}

	/** Schedules jobs and kills them one at a time in the order of their ids. */
	private static void killInOrder(RedisDelayQueue queue, String topic, int from, int count) {
		scheduleDue(queue, topic, from, count, Duration.ofMinutes(5));
		for (ReservedJob job : reserveAll(queue, topic, count)) {
			assertThat(queue.kill(job, "boom " + job.id())).isEqualTo(FailResult.DEAD);
		}
	}

	/** The ids of a topic's DEAD jobs, read page by page. */
	private static TreeSet<String> deadIds(RedisDelayQueue queue, String topic) {
		TreeSet<String> ids = new TreeSet<>();
		String cursor = null;
		do {
			DeadJobPage page = queue.deadJobs(topic, cursor, 1_000, false);
			page.jobs().forEach((job) -> ids.add(job.id()));
			cursor = page.next();
		}
		while (cursor != null);
		return ids;
	}

	private static TreeSet<String> ids(int from, int to) {
		TreeSet<String> ids = new TreeSet<>();
		for (int i = from; i < to; i++) {
			ids.add(id(i));
		}
		return ids;
	}

	private long deathEntries(RedisDelayQueue queue, String topic) {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			Long entries = connection.zSetCommands()
				.zCard(new KeySpace(this.queues.namespace, queue.getBuckets()).deaths(topic));
			return (entries != null) ? entries : 0;
		}
	}

	/** MEMORY USAGE of the keys that hold a topic's DEAD jobs: records, errors, dead lists, deaths. */
	private long memoryUsage(RedisDelayQueue queue, String topic) {
		KeySpace keys = new KeySpace(this.queues.namespace, queue.getBuckets());
		List<byte[]> all = new ArrayList<>();
		for (int b = 0; b < queue.getBuckets(); b++) {
			String prefix = "{" + this.queues.namespace + ":" + b + "}:";
			all.add(KeySpace.bytes(prefix + "jobs"));
			all.add(KeySpace.bytes(prefix + "errors"));
			all.add(KeySpace.bytes(prefix + "dead:" + topic));
		}
		all.add(keys.deaths(topic));
		return this.queues.memoryUsage(all);
	}

	@Test
	void threeThousandDeathsWithFailedOneThousandKeepExactlyTheLastThousandAcrossARestart() {
		RedisDelayQueue queue = start(Retention.lastFailed(1_000));
		// killed one at a time in id order: deaths in the same ms sort by id, as Redis orders
		// equal scores
		long afterTwoThousand = 0;
		for (int round = 0; round < 3; round++) {
			killInOrder(queue, "kept", round * 1_000, 1_000);
			if (round == 1) {
				afterTwoThousand = memoryUsage(queue, "kept");
			}
		}
		// bounded: 1,000 more deaths changed nothing but which jobs are kept
		long used = memoryUsage(queue, "kept");
		assertThat(used).as("bytes of the DEAD jobs and their listing after 3,000 deaths")
			.isBetween(afterTwoThousand * 95 / 100, afterTwoThousand * 105 / 100);
		long listing = this.queues.memoryUsage(List.of(new KeySpace(this.queues.namespace, 16).deaths("kept")));
		System.out.println("failed retention, 1,000 DEAD jobs kept with 2-byte payloads: " + used
				+ " bytes in all, the listing of deaths " + listing + " bytes (" + listing / 1_000 + " per job)");
		assertThat(listing / 1_000).as("bytes per listed death").isLessThan(150);
		assertThat(queue.deadJobs("kept", null, 10, false).total()).isEqualTo(1_000);
		assertThat(deadIds(queue, "kept")).isEqualTo(ids(2_000, 3_000));
		for (int i = 0; i < 3_000; i += 37) {
			assertThat(queue.find("kept", id(i)).map(JobInfo::state)).as(id(i))
				.isEqualTo((i >= 2_000) ? java.util.Optional.of(JobState.DEAD) : java.util.Optional.empty());
		}
		assertThat(queue.stats().topics().get("kept").dead()).isEqualTo(1_000);
		assertThat(deathEntries(queue, "kept")).isEqualTo(1_000);
		assertThat(trimmedInAll()).isEqualTo(2_000);

		queue.stop();
		RedisDelayQueue restarted = start(Retention.lastFailed(1_000));
		assertThat(deadIds(restarted, "kept")).isEqualTo(ids(2_000, 3_000));
		killInOrder(restarted, "kept", 3_000, 10);
		assertThat(deadIds(restarted, "kept")).isEqualTo(ids(2_010, 3_010));
	}

	@Test
	void jobsWhoseLastAttemptRanOutAreCountedAndTrimmedEvenMoreThanOneCallAtOnce() {
		// one bucket and a batch of 2,000: one timer step kills 1,500 jobs at one time, more
		// than one call of failed.lua adds
		RedisDelayQueue queue = start(Retention.lastFailed(100), 1, 2_000);
		scheduleDue(queue, "kept", 0, 1_500, Duration.ofMillis(50));
		List<ReservedJob> held = reserveAll(queue, "kept", 1_500);
		Instant deadline = held.stream().map(ReservedJob::reservedUntil).max(Comparator.naturalOrder()).orElseThrow();
		await().atMost(Duration.ofSeconds(10)).until(() -> queue.stats().readAt().isAfter(deadline));
		TimerSteps.Promotion step = TimerSteps.promote(queue, 0, false);
		assertThat(step.expired()).isEqualTo(1_500);
		// equal times of death sort by id: the last 100 ids are kept
		assertThat(deadIds(queue, "kept")).isEqualTo(ids(1_400, 1_500));
		assertThat(deathEntries(queue, "kept")).isEqualTo(100);
		assertThat(queue.find("kept", id(1_450)).orElseThrow().lastError()).contains("TTR");
	}

	@Test
	void aReplayedJobLeavesItsPlaceToOthersAndDyingAgainTakesTheLatest() {
		RedisDelayQueue queue = start(Retention.lastFailed(3));
		killInOrder(queue, "kept", 0, 3);
		assertThat(queue.replayDead("kept", id(0))).isTrue();
		ReservedJob again = reserveAll(queue, "kept", 1).get(0);
		assertThat(again.id()).isEqualTo(id(0));
		// the replayed job's entry is the oldest: named by the next death, it deletes nothing
		killInOrder(queue, "kept", 3, 1);
		assertThat(deadIds(queue, "kept")).containsExactly(id(1), id(2), id(3));
		assertThat(queue.find("kept", id(0)).orElseThrow().state()).isEqualTo(JobState.RESERVED);
		assertThat(queue.kill(again, "boom again")).isEqualTo(FailResult.DEAD);
		assertThat(deadIds(queue, "kept")).containsExactly(id(0), id(2), id(3));
		assertThat(deathEntries(queue, "kept")).isEqualTo(3);
	}

	@Test
	void entriesWhoseJobsAreGoneNeverCostAKeptJobItsPlace() {
		RedisDelayQueue queue = start(Retention.lastFailed(5));
		killInOrder(queue, "kept", 0, 5);
		// a cancelled DEAD job, and an entry whose job was deleted by a trim that stopped
		// before it removed the entry
		assertThat(queue.cancel("kept", id(0))).isTrue();
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.zSetCommands()
				.zAdd(new KeySpace(this.queues.namespace, queue.getBuckets()).deaths("kept"), 1,
						KeySpace.bytes(KeySpace.jobKey("kept", "long-gone")));
		}
		killInOrder(queue, "kept", 5, 2);
		assertThat(deadIds(queue, "kept")).containsExactly(id(2), id(3), id(4), id(5), id(6));
		assertThat(deathEntries(queue, "kept")).isEqualTo(5);
		assertThat(trimmedInAll()).isEqualTo(1);
	}

	@Test
	void deadJobsOlderThanFailedAgeAreDeletedByALaterDeath() {
		RedisDelayQueue queue = start(Retention.failedWithin(Duration.ofMillis(300)));
		killInOrder(queue, "kept", 0, 1);
		Instant firstDeath = queue.find("kept", id(0)).orElseThrow().diedAt();
		// nothing scans in the background: a later death deletes it once it is older
		int[] next = { 1 };
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			killInOrder(queue, "kept", next[0], 1);
			next[0]++;
			return queue.find("kept", id(0)).isEmpty();
		});
		Instant latest = queue.find("kept", id(next[0] - 1)).orElseThrow().diedAt();
		assertThat(Duration.between(firstDeath, latest)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		for (JobInfo kept : queue.deadJobs("kept", null, 1_000, false).jobs()) {
			assertThat(Duration.between(kept.diedAt(), latest)).isLessThanOrEqualTo(Duration.ofMillis(300));
		}
	}

	@Test
	void aTopicThatLimitsOnlyItsDeadJobsKeepsNoFinishedJobsAndOtherTopicsKeepEveryDeadJob() {
		RedisDelayQueue queue = start(Retention.lastFailed(2));
		killInOrder(queue, "kept", 0, 4);
		killInOrder(queue, "other", 0, 4);
		scheduleDue(queue, "kept", 10, 1, Duration.ofMinutes(5));
		assertThat(queue.finish(reserveAll(queue, "kept", 1).get(0))).isTrue();
		assertThat(queue.find("kept", id(10))).isEmpty();
		assertThat(queue.stats().completed()).isEmpty();
		assertThat(deadIds(queue, "kept")).containsExactly(id(2), id(3));
		assertThat(deadIds(queue, "other")).isEqualTo(ids(0, 4));
		assertThat(deathEntries(queue, "other")).isZero();
	}

	@Test
	void deathsOfTwoInstancesAtOnceAcrossBucketsEndWithExactlyTheLimit() throws Exception {
		RedisDelayQueue first = start(Retention.lastFailed(200));
		RedisDelayQueue second = start(Retention.lastFailed(200));
		scheduleDue(first, "kept", 0, 1_000, Duration.ofMinutes(5));
		List<ReservedJob> jobs = reserveAll(first, "kept", 1_000);
		List<String> killed = java.util.Collections.synchronizedList(new ArrayList<>());
		ExecutorService threads = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				RedisDelayQueue queue = (t % 2 == 0) ? first : second;
				List<ReservedJob> share = jobs.subList(t * 250, (t + 1) * 250);
				done.add(threads.submit(() -> share.forEach((job) -> {
					assertThat(queue.kill(job, "boom")).isEqualTo(FailResult.DEAD);
					killed.add(job.id());
				})));
			}
			for (Future<?> future : done) {
				future.get();
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(first.deadJobs("kept", null, 10, false).total()).isEqualTo(200);
		assertThat(deathEntries(first, "kept")).isEqualTo(200);
		assertThat(trimmedInAll()).isEqualTo(800);
		// the kept ones are the latest deaths, by time of death in milliseconds (deaths of one
		// millisecond are ordered by job key) and up to four kills in flight, each added to
		// killed when its thread runs again: near the end, not in the exact order of killed
		assertThat(killed.subList(1_000 - 200 - 50, 1_000)).containsAll(deadIds(first, "kept"));
	}

	@Test
	void aDeathsKeyRedisCannotWriteLeavesTheDeathDoneAndALaterDeathLimitsAgain() {
		RedisDelayQueue queue = start(Retention.lastFailed(2));
		KeySpace keys = new KeySpace(this.queues.namespace, queue.getBuckets());
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			// the key of another type: the script fails at its first read
			connection.stringCommands().set(keys.deaths("kept"), "x".getBytes(StandardCharsets.UTF_8));
			killInOrder(queue, "kept", 0, 3);
			assertThat(deadIds(queue, "kept")).isEqualTo(ids(0, 3));
			connection.keyCommands().del(keys.deaths("kept"));
		}
		// the deaths it could not list are not counted; the next ones are limited
		killInOrder(queue, "kept", 3, 4);
		assertThat(deadIds(queue, "kept")).containsExactly(id(0), id(1), id(2), id(5), id(6));
	}

	@Test
	void aBucketCallThatFailsLeavesNoLaterBatchUnlistedAndLaterDeathsCatchUp() {
		RedisDelayQueue queue = start(Retention.lastFailed(100), 2, 2_000);
		KeySpace keys = new KeySpace(this.queues.namespace, 2);
		List<String> ids = io.github.delayqueue.support.OneBucket.ids(queue, "kept", 1_540);
		int bucket = queue.bucketOf("kept", ids.get(0));
		int other = 1 - bucket;
		String brokenJobs = "{" + this.queues.namespace + ":" + other + "}:jobs";
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			// the oldest entries name jobs of the other bucket, whose records Redis cannot read:
			// every drop there fails
			for (int i = 0, n = 0; n < 5; i++) {
				if (queue.bucketOf("kept", "q" + i) == other) {
					connection.zSetCommands().zAdd(keys.deaths("kept"), ++n, KeySpace.bytes("kept:q" + i));
				}
			}
			connection.stringCommands().set(KeySpace.bytes(brokenJobs), KeySpace.bytes("x"));
			// one timer step kills 1,500 jobs of one bucket: two batches of failed.lua
			List<ScheduleRequest> requests = new ArrayList<>();
			for (String id : ids.subList(0, 1_500)) {
				requests.add(new ScheduleRequest("kept", id, KeySpace.bytes("{}"), Duration.ZERO, null,
						Duration.ofMillis(50), 1, OnDuplicate.KEEP, Map.of(), null));
			}
			queue.scheduleAll(requests);
			TimerSteps.promote(queue, bucket, false);
			List<ReservedJob> held = reserveAll(queue, "kept", 1_500);
			Instant deadline = held.stream().map(ReservedJob::reservedUntil).max(Comparator.naturalOrder()).orElseThrow();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> connection.serverCommands().time() > deadline.toEpochMilli());
			assertThat(TimerSteps.promote(queue, bucket, false).expired()).isEqualTo(1_500);
			assertThat(deathEntries(queue, "kept")).as("every death listed, the failed drops' entries kept")
				.isEqualTo(1_505);
			connection.keyCommands().del(KeySpace.bytes(brokenJobs));
		}
		// each later death names up to 101 entries: the excess goes within 14 deaths
		int next = 1_500;
		while (deathEntries(queue, "kept") > 100 && next < 1_540) {
			String id = ids.get(next++);
			queue.scheduleAll(List.of(new ScheduleRequest("kept", id, KeySpace.bytes("{}"), Duration.ZERO, null,
					Duration.ofMinutes(5), 1, OnDuplicate.KEEP, Map.of(), null)));
			TimerSteps.promote(queue, bucket, false);
			assertThat(queue.kill(reserveAll(queue, "kept", 1).get(0), "boom")).isEqualTo(FailResult.DEAD);
		}
		assertThat(next).as("deaths it took").isLessThanOrEqualTo(1_515);
		assertThat(deathEntries(queue, "kept")).isEqualTo(100);
		assertThat(queue.deadJobs("kept", null, 10, false).total()).isEqualTo(100);
		assertThat(deadIds(queue, "kept")).contains(ids.get(next - 1));
	}

	@Test
	void ageIsMeasuredFromTheEarlierOfTheLatestDeathAndTheTopicNodesClock() {
		RedisDelayQueue queue = start(Retention.failedWithin(Duration.ofMinutes(1)));
		KeySpace keys = new KeySpace(this.queues.namespace, queue.getBuckets());
		ScriptRunner runner = new ScriptRunner(this.queues.connectionFactory());
		LuaScript failed = LuaScript.of("failed", 1);
		long now = queue.stats().readAt().toEpochMilli();
		// listed earlier: a death 5 minutes before the new one
		runner.run(failed, new byte[][] { keys.deaths("kept"), KeySpace.bytes("add"), KeySpace.bytes("0"),
				KeySpace.bytes("60000"), KeySpace.bytes("100"), KeySpace.bytes("kept:old"),
				KeySpace.bytes(String.valueOf(now - 390_000)) });
		// a death by a bucket node whose clock lags 90 s: not old by its own clock
		List<Object> reply = ScriptReplies.list(runner.run(failed, new byte[][] { keys.deaths("kept"), KeySpace.bytes("add"),
				KeySpace.bytes("0"), KeySpace.bytes("60000"), KeySpace.bytes("100"), KeySpace.bytes("kept:new"),
				KeySpace.bytes(String.valueOf(now - 90_000)) }));
		assertThat(ScriptReplies.asLong(reply.get(0))).isEqualTo(now - 90_000);
		assertThat(reply.subList(2, reply.size()).stream().map(ScriptReplies::asString).toList())
			.containsExactly("kept:old", String.valueOf(now - 390_000));
		runner.run(failed, new byte[][] { keys.deaths("kept"), KeySpace.bytes("remove"), KeySpace.bytes("kept:old"),
				KeySpace.bytes(String.valueOf(now - 390_000)) });
		assertThat(deathEntries(queue, "kept")).isEqualTo(1);
		// a death 30 s ago, young by every clock; then one by a node whose clock leads 90 s: it
		// names what the topic node's clock finds old too (kept:new), not the young one
		runner.run(failed, new byte[][] { keys.deaths("kept"), KeySpace.bytes("add"), KeySpace.bytes("0"),
				KeySpace.bytes("60000"), KeySpace.bytes("100"), KeySpace.bytes("kept:recent"),
				KeySpace.bytes(String.valueOf(now - 30_000)) });
		reply = ScriptReplies.list(runner.run(failed, new byte[][] { keys.deaths("kept"), KeySpace.bytes("add"),
				KeySpace.bytes("0"), KeySpace.bytes("60000"), KeySpace.bytes("100"), KeySpace.bytes("kept:ahead"),
				KeySpace.bytes(String.valueOf(now + 90_000)) }));
		assertThat(ScriptReplies.asLong(reply.get(0))).isBetween(now, now + 10_000);
		assertThat(reply.subList(2, reply.size()).stream().map(ScriptReplies::asString).toList())
			.containsExactly("kept:new", String.valueOf(now - 90_000));
	}

	@Test
	void failedRetentionRulesNameTheFieldAndTheRule() {
		assertThatIllegalArgumentException().isThrownBy(() -> Retention.lastFailed(-1))
			.withMessage("failed must be between 0 and 1000000, was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> Retention.failedWithin(Duration.ofDays(366)))
			.withMessage("failedAge must be between PT0.001S and P365D, was P366D");
		assertThatIllegalArgumentException().isThrownBy(() -> new Retention(0, null, false, 0, null))
			.withMessageStartingWith("retention must set completed or completedAge");
		assertThatIllegalArgumentException().isThrownBy(() -> Retention.lastFailed(1).withPayloads())
			.withMessage("payloads are kept only with finished jobs: set completed or completedAge too");
		assertThat(Retention.lastCompleted(5).withFailed(10, Duration.ofDays(7)))
			.isEqualTo(new Retention(5, null, false, 10, Duration.ofDays(7)));
	}

}
