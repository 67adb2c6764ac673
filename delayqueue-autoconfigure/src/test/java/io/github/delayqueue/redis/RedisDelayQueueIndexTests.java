package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.github.delayqueue.core.BucketCountMismatchException;
import io.github.delayqueue.core.DeadJobPage;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The indexes at their edges: tombstones of a topic nobody consumes stay bounded, dead jobs
 * page by a cursor whatever happens between pages, a call that fails half-way changes nothing,
 * repair rebuilds what a failure left, and the bucket count cannot change under a namespace.
 * The extension checks the invariant after each test.
 */
class RedisDelayQueueIndexTests {

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	private static List<ScheduleRequest> requests(String topic, int from, int count, Duration delay) {
		List<ScheduleRequest> requests = new ArrayList<>(count);
		for (int i = from; i < from + count; i++) {
			requests.add(request(topic, "job-" + i, "{}", delay));
		}
		return requests;
	}

	private long listLength(RedisDelayQueue queue, String topic, int bucket) {
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			return connection.listCommands()
				.lLen(("{" + queue.getNamespace() + ":" + bucket + "}:ready:" + topic).getBytes(StandardCharsets.UTF_8));
		}
	}

	@Test
	void tombstonesOfATopicNobodyConsumesAreCompactedByTheGuard() {
		// no timer while the tombstones pile up: 12,500 READY jobs, more than one compaction
		// window, 12,000 of them cancelled
		RedisDelayQueue producer = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		producer.scheduleAll(requests("unconsumed", 0, 12_500, Duration.ZERO));
		for (int i = 0; i < 12_000; i++) {
			assertThat(producer.cancel("unconsumed", "job-" + i)).isTrue();
		}
		assertThat(listLength(producer, "unconsumed", 0)).isEqualTo(12_500);
		// a timer's guard compacts the list down to the READY jobs, in windows of 10,000 entries
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).guardInterval(Duration.ofMillis(300)));
		await().atMost(Duration.ofSeconds(30)).until(() -> listLength(queue, "unconsumed", 0) == 500);
		Set<String> left = new TreeSet<>();
		for (ReservedJob job : queue.reserve("unconsumed", 1_000, null)) {
			left.add(job.id());
		}
		assertThat(left).hasSize(500).allMatch((id) -> Integer.parseInt(id.substring(4)) >= 12_000);
	}

	@Test
	void aTimerStepChangesOnlyTheStateLetterAndDropsEntriesWhoseRecordIsNotADelayedJobs() {
		RedisDelayQueue producer = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		producer.scheduleAll(requests("moved", 0, 4, Duration.ofMillis(200)));
		String prefix = "{" + producer.getNamespace() + ":0}:";
		byte[] jobs = bytes(prefix + "jobs");
		byte[] delayedRecord;
		try (RedisConnection connection = producer.getConnectionFactory().getConnection()) {
			// as a retry after a back-off leaves it: an attempt and a token in the header
			String scheduled = new String(connection.hashCommands().hGet(jobs, bytes("moved:job-0")),
					StandardCharsets.UTF_8);
			assertThat(scheduled).startsWith("D,").contains(",\n");
			delayedRecord = bytes("D1" + scheduled.substring(1).replaceFirst(",\n", ",42\n"));
			connection.hashCommands().hSet(jobs, bytes("moved:job-0"), delayedRecord);
			// a record no script wrote, one whose header has a field too many, one in another state
			connection.hashCommands().hSet(jobs, bytes("moved:job-1"), bytes("Dgarbage\n{}"));
			connection.hashCommands().hSet(jobs, bytes("moved:job-2"), bytes("D,3,n5c,mwm0nk74,255s0,,1\n{}"));
			byte[] other = connection.hashCommands().hGet(jobs, bytes("moved:job-3"));
			other[0] = 'X';
			connection.hashCommands().hSet(jobs, bytes("moved:job-3"), other);
		}

		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> queue.find("moved", "job-0").map(JobInfo::state).orElse(null) == JobState.READY);
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			byte[] readyRecord = connection.hashCommands().hGet(jobs, bytes("moved:job-0"));
			byte[] expected = delayedRecord.clone();
			expected[0] = 'R';
			assertThat(readyRecord).isEqualTo(expected);
			assertThat(connection.zSetCommands().zCard(bytes(prefix + "delayed"))).isZero();
			assertThat(connection.listCommands().lRange(bytes(prefix + "ready:moved"), 0, -1))
				.containsExactly(bytes("moved:job-0"));
		}
		assertThat(queue.reserve("moved", 10, null)).extracting(ReservedJob::id).containsExactly("job-0");
		// the planted records go, and repair corrects the counts they left
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			connection.hashCommands().hDel(jobs, bytes("moved:job-1"), bytes("moved:job-2"), bytes("moved:job-3"));
		}
		queue.repair(true);
		assertThat(queue.repair(false).isClean()).isTrue();
	}

	@Test
	void aTakeRewritesOnlyTheHeaderFieldsOfAReservationAndReadsAnyHeaderDecodeReads() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		queue.scheduleAll(List.of(request("taken", "retried", "{\"n\":0}", Duration.ZERO),
				request("taken", "bare", "{}", Duration.ZERO), request("taken", "fresh", "{\"n\":2}", Duration.ZERO)));
		String prefix = "{" + queue.getNamespace() + ":0}:";
		byte[] jobs = bytes(prefix + "jobs");
		String retried;
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			// as a retry leaves it: an attempt, the stale token of the last reservation, and an
			// attempts limit of 9 (the default is 5)
			String scheduled = string(connection.hashCommands().hGet(jobs, bytes("taken:retried")));
			assertThat(scheduled).startsWith("R,5,").contains(",\n");
			retried = "R2,9," + scheduled.substring(4).replaceFirst(",\n", ",17\n");
			connection.hashCommands().hSet(jobs, bytes("taken:retried"), bytes(retried));
			// a header without the line that ends it, which decode reads as a job without payload
			connection.hashCommands().hSet(jobs, bytes("taken:bare"), bytes("R,3,n5c,mwm0nk74,-2s,"));
		}
		JobInfo before = queue.find("taken", "retried").orElseThrow();

		List<ReservedJob> taken = queue.reserve("taken", 10, null, null);

		assertThat(taken).extracting(ReservedJob::id).containsExactly("retried", "bare", "fresh");
		ReservedJob first = taken.get(0);
		assertThat(first.attempt()).isEqualTo(3);
		assertThat(first.maxAttempts()).isEqualTo(9);
		assertThat(first.dueAt()).isEqualTo(before.dueAt());
		assertThat(first.createdAt()).isEqualTo(before.createdAt());
		assertThat(string(first.payload())).isEqualTo("{\"n\":0}");
		ReservedJob bare = taken.get(1);
		assertThat(bare.payload()).isEmpty();
		assertThat(bare.attempt()).isEqualTo(1);
		assertThat(bare.ttr()).isEqualTo(Duration.ofMillis(Long.parseLong("n5c", 36)));
		assertThat(bare.createdAt().toEpochMilli()).isEqualTo(Long.parseLong("mwm0nk74", 36));
		assertThat(bare.dueAt().toEpochMilli()).isEqualTo(Long.parseLong("mwm0nk74", 36) - Long.parseLong("2s", 36));
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			// only the state, the attempt and the token change; the rest is the record's own text
			int times = retried.indexOf(',', 3);
			assertThat(string(connection.hashCommands().hGet(jobs, bytes("taken:retried"))))
				.isEqualTo("S3,9" + retried.substring(times, retried.indexOf(",17\n")) + "," + first.token() + "\n{\"n\":0}");
			assertThat(string(connection.hashCommands().hGet(jobs, bytes("taken:bare"))))
				.isEqualTo("S1,3,n5c,mwm0nk74,-2s," + bare.token() + "\n");
		}
		// an attempts limit given with the take replaces the job's own, in the record too (a
		// released job's attempt is not counted)
		assertThat(queue.release(first)).isTrue();
		List<ReservedJob> again = queue.reserve("taken", 1, Duration.ofSeconds(5), 7);
		assertThat(again).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo("retried");
			assertThat(job.attempt()).isEqualTo(3);
			assertThat(job.maxAttempts()).isEqualTo(7);
			assertThat(job.reservedUntil()).isEqualTo(job.deliveredAt().plusSeconds(5));
		});
		assertThat(queue.find("taken", "retried").orElseThrow().maxAttempts()).isEqualTo(7);
		for (ReservedJob job : List.of(again.get(0), taken.get(1), taken.get(2))) {
			assertThat(queue.finish(job)).isTrue();
		}
	}

	private static String string(byte[] bytes) {
		return new String(bytes, StandardCharsets.UTF_8);
	}

	@Test
	void aSmallListKeepsItsOrderWhenCompacted() {
		RedisDelayQueue producer = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		producer.scheduleAll(requests("ordered", 0, 3_000, Duration.ZERO));
		// every third job stays
		for (int i = 0; i < 3_000; i++) {
			if (i % 3 != 0) {
				producer.cancel("ordered", "job-" + i);
			}
		}
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).guardInterval(Duration.ofMillis(300)));
		await().atMost(Duration.ofSeconds(30)).until(() -> listLength(queue, "ordered", 0) == 1_000);
		List<ReservedJob> jobs = queue.reserve("ordered", 1_000, null);
		assertThat(jobs).extracting(ReservedJob::id)
			.isEqualTo(requests("ordered", 0, 3_000, Duration.ZERO).stream()
				.map(ScheduleRequest::id)
				.filter((id) -> Integer.parseInt(id.substring(4)) % 3 == 0)
				.toList());
	}

	@Test
	void deadJobsArePagedByACursorInOrderOfDeathAcrossBuckets() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(4).batchSize(10_000));
		// 300 jobs die together (one promotion: many share a time of death), 50 more one by one
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			requests.add(new ScheduleRequest("graveyard", "ttr-" + i, "{}".getBytes(StandardCharsets.UTF_8),
					Duration.ZERO, null, Duration.ofMillis(300), 1, OnDuplicate.KEEP, Map.of(), null));
		}
		queue.scheduleAll(requests);
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			queue.reserve("graveyard", 1_000, null);
			return queue.stats().topics().get("graveyard").reserved() == 300;
		});
		await().atMost(Duration.ofSeconds(20)).until(() -> queue.stats().topics().get("graveyard").dead() == 300);
		queue.scheduleAll(requests("graveyard", 0, 50, Duration.ZERO));
		for (ReservedJob job : queue.reserve("graveyard", 50, null)) {
			queue.kill(job, "killed");
		}

		List<JobInfo> all = new ArrayList<>();
		String cursor = null;
		int pages = 0;
		do {
			DeadJobPage page = queue.deadJobs("graveyard", cursor, 7, false);
			assertThat(page.total()).isEqualTo(350);
			assertThat(page.jobs()).hasSizeLessThanOrEqualTo(7);
			all.addAll(page.jobs());
			cursor = page.next();
			pages++;
		}
		while (cursor != null);
		assertThat(pages).isEqualTo(50);
		assertThat(all).extracting(JobInfo::id).doesNotHaveDuplicates().hasSize(350);
		assertThat(all).extracting(JobInfo::diedAt).isSorted();

		// the job a cursor points at is replayed between two pages: the next page goes on after it
		DeadJobPage first = queue.deadJobs("graveyard", null, 10, false);
		JobInfo last = first.jobs().get(9);
		assertThat(queue.replayDead("graveyard", last.id())).isTrue();
		DeadJobPage second = queue.deadJobs("graveyard", first.next(), 10, false);
		assertThat(second.jobs()).extracting(JobInfo::id).containsExactlyElementsOf(
				all.subList(10, 20).stream().map(JobInfo::id).toList());

		assertThatIllegalArgumentException().isThrownBy(() -> queue.deadJobs("graveyard", "not-a-cursor", 10, false))
			.withMessageContaining("cursor");
	}

	@Test
	void aBulkScheduleThatMeetsAnUnreadableRecordHalfWayChangesNothing() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1));
		queue.schedule(request("half", "job-1500", "{}", Duration.ofHours(1)));
		this.queues.overwriteJobRecord("half:job-1500", "D,0,3,30000,1795000000000,1794999000000,0\n{}");
		this.queues.skipInvariant("a record in another format, on purpose");
		Map<String, String> before = this.queues.bucketSnapshot();
		// one script call of 200 jobs, the unreadable one in its middle: the writes of the 100 jobs
		// before it would come before the error, were the script not reading everything first
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> queue.scheduleAll(requests("half", 1_400, 200, Duration.ZERO)))
			.withMessageContaining("half:job-1500");
		assertThat(this.queues.bucketSnapshot()).isEqualTo(before);
	}

	@Test
	void aReserveThatFailsAtALaterBucketHandsOverTheJobsAlreadyTaken() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(2).timerEnabled(false));
		String inFirst = idIn(queue, "split", 0);
		queue.schedule(request("split", inFirst, "{}", Duration.ZERO));
		byte[] broken = bytes("{" + queue.getNamespace() + ":1}:ready:split");
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			// bucket 1's ready list is not a list: its reserve script fails (before it writes)
			connection.stringCommands().set(broken, bytes("not a list"));
			// the first reserve of a topic looks at bucket 0, then bucket 1
			List<ReservedJob> jobs = queue.reserve("split", 10, null);
			assertThat(jobs).extracting(ReservedJob::id).containsExactly(inFirst);
			assertThat(queue.find("split", inFirst)).get().extracting(JobInfo::state).isEqualTo(JobState.RESERVED);
			assertThat(queue.finish(jobs.get(0))).isTrue();
			// a call that takes nothing before the failure reports it
			assertThatExceptionOfType(DelayQueueException.class).isThrownBy(() -> queue.reserve("split", 10, null))
				.withMessageContaining("WRONGTYPE");
			connection.keyCommands().del(broken);
		}
	}

	private static String idIn(RedisDelayQueue queue, String topic, int bucket) {
		for (int i = 0;; i++) {
			if (queue.bucketOf(topic, "job-" + i) == bucket) {
				return "job-" + i;
			}
		}
	}

	@Test
	void repairPutsStrandedJobsBackAndRecountsAfterAFailureTheScriptsCouldNotRuleOut() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		queue.scheduleAll(requests("broken", 0, 10, Duration.ZERO));
		queue.schedule(request("broken", "later", "{}", Duration.ofHours(1)));
		assertThat(queue.repair(false).isClean()).isTrue();
		String prefix = "{" + queue.getNamespace() + ":0}:";
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			// what a half-done write would leave: a READY job in no list, a DELAYED one in no zset,
			// an index entry without a job, a count that drifted
			connection.listCommands().lRem(bytes(prefix + "ready:broken"), 1, bytes("broken:job-3"));
			connection.zSetCommands().zRem(bytes(prefix + "delayed"), bytes("broken:later"));
			connection.zSetCommands().zAdd(bytes(prefix + "reserved"), 1, bytes("broken:nobody"));
			connection.hashCommands().hSet(bytes(prefix + "stats"), bytes("R:broken"), bytes("42"));
			// and what a replayed job finished across versions leaves: an error without a job,
			// beside the error of a job that exists, which stays
			connection.hashCommands().hSet(bytes(prefix + "errors"), bytes("broken:gone"), bytes("boom"));
			connection.hashCommands().hSet(bytes(prefix + "errors"), bytes("broken:later"), bytes("kept"));
		}
		RepairResult found = queue.repair(false);
		assertThat(found.reindexed()).isEqualTo(2);
		assertThat(found.dropped()).isEqualTo(2);
		assertThat(found.countsCorrected()).isEqualTo(1);
		assertThat(queue.repair(false)).as("a dry run changes nothing").isEqualTo(found);

		RepairResult repaired = queue.repair(true);
		assertThat(repaired).isEqualTo(found);
		assertThat(queue.repair(false).isClean()).isTrue();
		assertThat(queue.stats().topics().get("broken").ready()).isEqualTo(10);
		Set<String> ids = new TreeSet<>();
		queue.reserve("broken", 100, null).forEach((job) -> ids.add(job.id()));
		assertThat(ids).hasSize(10).contains("job-3");
		assertThat(queue.find("broken", "later")).get().extracting(JobInfo::state).isEqualTo(JobState.DELAYED);
		assertThat(queue.find("broken", "later")).get().extracting(JobInfo::lastError).isEqualTo("kept");
		// (a DELAYED job on its first attempt has no error: the invariant checked after the test
		// says its finish would leave it behind)
		assertThat(QueueInvariant.violations(RedisTestServers.shared(), queue.getNamespace(), 1))
			.singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
			.contains("an error is kept for broken:later (D, attempt 0), which its finish would leave behind");
		assertThat(queue.cancel("broken", "later")).isTrue();
	}

	/**
	 * A ready list that holds only tombstones and whose topic has no count left (data of a
	 * version that did not count tombstones, a lost stats field), and a dead list whose entries
	 * have no record and no count: repair finds them from the keys.
	 */
	@Test
	void repairFindsReadyListsAndDeadListsOfTopicsWithoutCountsOrRecords() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		queue.scheduleAll(requests("cancelled", 0, 2, Duration.ZERO));
		assertThat(queue.cancel("cancelled", "job-0")).isTrue();
		assertThat(queue.cancel("cancelled", "job-1")).isTrue();
		// as the previous version left it: the tombstones were not counted
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			String prefix = "{" + queue.getNamespace() + ":0}:";
			connection.hashCommands().hDel(bytes(prefix + "stats"), bytes("T:cancelled"));
			// and a dead-list entry whose record and count were lost
			connection.zSetCommands().zAdd(bytes(prefix + "dead:lost"), 1, bytes("lost:job"));
		}
		RepairResult found = queue.repair(true);
		List<String> violations = QueueInvariant.violations(RedisTestServers.shared(), queue.getNamespace(), 1);
		assertThat(violations).as("the invariant after repair(true)").isEmpty();
	}

	/**
	 * One guard re-check reads at most one window of entries, however many topics have
	 * tombstones to compact: a script's work is bounded, not grown with the topics.
	 */
	@Test
	void oneGuardPromoteCompactsAtMostOneWindowOfEntries() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		int topics = 3;
		int perTopic = 4_000;
		for (int t = 0; t < topics; t++) {
			queue.scheduleAll(requests("t" + t, 0, perTopic, Duration.ZERO));
			for (int i = 0; i < perTopic; i++) {
				queue.cancel("t" + t, "job-" + i);
			}
		}
		long before = totalLength(queue, topics);
		assertThat(before).isEqualTo((long) topics * perTopic);
		KeySpace keys = new KeySpace(queue.getNamespace(), 1);
		ScriptRunner runner = new ScriptRunner(queue.getConnectionFactory());
		runner.run(LuaScript.job("promote"), new byte[][] { keys.jobs(0), keys.guard(0), bytes(keys.channel()),
				bytes("0"), bytes("500"), bytes("1") });
		long after = totalLength(queue, topics);
		assertThat(before - after).as("ready-list entries one guard promote call read and dropped")
			.isLessThanOrEqualTo(10_000);
	}

	private long totalLength(RedisDelayQueue queue, int topics) {
		long total = 0;
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			for (int t = 0; t < topics; t++) {
				total += connection.listCommands().lLen(bytes("{" + queue.getNamespace() + ":0}:ready:t" + t));
			}
		}
		return total;
	}

	@Test
	void theBucketCountIsPinnedAtTheFirstStartAndAnotherCountIsRefused() {
		this.queues.start((builder) -> builder.buckets(8));
		RedisDelayQueue other = this.queues.create((builder) -> builder.buckets(16));
		assertThatExceptionOfType(BucketCountMismatchException.class).isThrownBy(other::start)
			.withMessageContaining("delayqueue.buckets is 16")
			.withMessageContaining("was created with a bucket count of 8")
			.withMessageContaining("Set delayqueue.buckets=8")
			.withMessageContaining("another delayqueue.namespace");
		assertThat(other.isRunning()).isFalse();
		RedisDelayQueue same = this.queues.start((builder) -> builder.buckets(8));
		assertThat(same.isRunning()).isTrue();
	}

	/**
	 * A job that passes through a state leaves its count at 0 rather than paying an HDEL per
	 * state; nothing reads such a field as a figure, repair does not count it as drift, and
	 * the guard re-check deletes it.
	 */
	@Test
	void countsThatFellToZeroAreNoFiguresAndTheGuardDeletesThem() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		queue.schedule(request("passing", "a", "{}", Duration.ZERO));
		queue.schedule(request("staying", "b", "{}", Duration.ofHours(1)));
		assertThat(queue.finish(queue.reserve("passing", 1, null).get(0))).isTrue();
		String stats = "{" + queue.getNamespace() + ":0}:stats";
		assertThat(hash(queue, stats)).containsEntry("R:passing", "0").containsEntry("S:passing", "0");
		assertThat(queue.stats().topics()).containsOnlyKeys("staying");
		assertThat(queue.repair(false).isClean()).isTrue();

		TimerSteps.promote(queue, 0, true);
		assertThat(hash(queue, stats)).containsOnlyKeys("D:staying");
		assertThat(queue.stats().topics()).containsOnlyKeys("staying");
	}

	private static Map<String, String> hash(RedisDelayQueue queue, String key) {
		try (RedisConnection connection = queue.getConnectionFactory().getConnection()) {
			Map<String, String> entries = new java.util.TreeMap<>();
			connection.hashCommands().hGetAll(bytes(key)).forEach((field, value) -> entries
				.put(new String(field, StandardCharsets.UTF_8), new String(value, StandardCharsets.UTF_8)));
			return entries;
		}
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
