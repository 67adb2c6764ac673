package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.WaitingJobPage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Pages of waiting jobs ({@link DelayQueueAdmin#waitingJobs}): order, cursors, bounded work.
 */
public class RedisDelayQueueWaitingJobsTests {

	/** Copies the record and due time of {@code <topic>:template} to ids 0000000 to count - 1. */
	private static final String LOADER = """
			local record = redis.call('HGET', KEYS[1], ARGV[1])
			local due = redis.call('ZSCORE', KEYS[2], ARGV[1])
			for i = tonumber(ARGV[3]), tonumber(ARGV[4]) do
			  local jobkey = ARGV[2] .. ':' .. string.format('%07d', i)
			  redis.call('HSET', KEYS[1], jobkey, record)
			  redis.call('ZADD', KEYS[2], due, jobkey)
			end
			redis.call('HINCRBY', KEYS[3], 'D:' .. ARGV[2], tonumber(ARGV[4]) - tonumber(ARGV[3]) + 1)
			return 0
			""";

	@RegisterExtension
	final RedisQueues queues = new RedisQueues();

	/**
	 * Bulk-loads {@code count} DELAYED jobs of a topic into a one-bucket namespace, each a copy of
	 * the job {@code template} scheduled there before, ids {@code 0000000} on.
	 */
	public static void loadDelayed(RedisConnectionFactory factory, String namespace, String topic, int count) {
		String prefix = "{" + namespace + ":0}:";
		try (RedisConnection connection = factory.getConnection()) {
			for (int from = 0; from < count; from += 20_000) {
				connection.scriptingCommands()
					.eval(bytes(LOADER), ReturnType.INTEGER, 3, bytes(prefix + "jobs"), bytes(prefix + "delayed"),
							bytes(prefix + "stats"), bytes(topic + ":template"), bytes(topic), bytes("" + from),
							bytes("" + (Math.min(count, from + 20_000) - 1)));
			}
		}
	}

	/** Drops what {@link #loadDelayed} wrote (and the rest of bucket 0's jobs). */
	public static void unload(RedisConnectionFactory factory, String namespace) {
		String prefix = "{" + namespace + ":0}:";
		try (RedisConnection connection = factory.getConnection()) {
			connection.keyCommands()
				.unlink(bytes(prefix + "jobs"), bytes(prefix + "delayed"), bytes(prefix + "stats"));
		}
	}

	/** The page cursor after job {@code id} of time {@code at} (ms), as the endpoint and HTTP API take it. */
	public static String cursor(long at, String id) {
		return PageCursor.text(at, id);
	}

	/**
	 * ZRANGE calls an application's own background work (its heartbeat, the dead-job trim) may
	 * make while a page is read: the server's command counts are shared, and they do not grow
	 * with the queue.
	 */
	public static final long BACKGROUND_CALLS = 4;

	/**
	 * Reads a page, asserting its work bounded whatever the index holds: no more ZRANGE calls than
	 * a bisection among {@code entries} of one due time and the windows of {@code limit + 1}
	 * entries, besides {@code others} calls of the rest of the request (one bucket). Prints the
	 * page's wall time (measured, not asserted).
	 */
	public static <T> T boundedPage(RedisConnectionFactory factory, String what, long entries, int limit, long others,
			Supplier<T> read) {
		long ranges = RedisStats.commandStat(factory, "zrange", "calls");
		long started = System.nanoTime();
		T page = read.get();
		long millis = (System.nanoTime() - started) / 1_000_000;
		long calls = RedisStats.commandStat(factory, "zrange", "calls") - ranges;
		long bound = others + (64 - Long.numberOfLeadingZeros(entries)) + (limit + 256) / 256;
		System.out.println(what + ": " + millis + " ms, " + calls + " ZRANGE calls (at most " + bound + ")");
		assertThat(calls).as(what + ": ZRANGE calls").isLessThanOrEqualTo(bound);
		return page;
	}

	/** The ZRANGE calls of one run of {@code call}. */
	public static long zrangeCalls(RedisConnectionFactory factory, Runnable call) {
		long ranges = RedisStats.commandStat(factory, "zrange", "calls");
		call.run();
		return RedisStats.commandStat(factory, "zrange", "calls") - ranges;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static List<ScheduleRequest> requests(String topic, int count, Duration delay) {
		List<ScheduleRequest> requests = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			requests.add(request(topic, String.format("%05d", i), "{\"n\":" + i + "}", delay));
		}
		return requests;
	}

	/** Reads every page, checking that each is at most {@code limit} long. */
	private static List<JobInfo> allPages(RedisDelayQueue queue, String topic, JobState state, int limit) {
		List<JobInfo> all = new ArrayList<>();
		String cursor = null;
		do {
			WaitingJobPage page = queue.waitingJobs(topic, state, cursor, limit, true);
			assertThat(page.jobs()).hasSizeLessThanOrEqualTo(limit);
			all.addAll(page.jobs());
			cursor = page.next();
		}
		while (cursor != null);
		return all;
	}

	@Test
	void aPageOfAMillionDelayedJobsInOneTopicReadsABoundedNumberOfEntries() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		this.queues.skipInvariant("a million jobs: the check reads them all (the loader's records are checked in "
				+ "theBulkLoaderWritesTheRecordsTheSchedulerWrites)");
		queue.schedule(request("big", "template", "{\"a\":1}", Duration.ofDays(1)));
		long started = System.nanoTime();
		loadDelayed(queue.getConnectionFactory(), queue.getNamespace(), "big", 1_000_000);
		System.out.println("a million DELAYED jobs loaded in " + (System.nanoTime() - started) / 1_000_000 + " ms");
		assertThat(queue.stats().topics().get("big").delayed()).isEqualTo(1_000_001);

		RedisConnectionFactory factory = queue.getConnectionFactory();
		WaitingJobPage first = boundedPage(factory, "core, first page", 1_000_001, 100, 0,
				() -> queue.waitingJobs("big", JobState.DELAYED, null, 100, true));
		assertThat(first.jobs()).extracting(JobInfo::id).startsWith("0000000", "0000001").hasSize(100).endsWith("0000099");
		assertThat(first.jobs().get(0).payloadAsString()).isEqualTo("{\"a\":1}");
		WaitingJobPage second = boundedPage(factory, "core, second page", 1_000_001, 100, 0,
				() -> queue.waitingJobs("big", JobState.DELAYED, first.next(), 100, false));
		assertThat(second.jobs()).extracting(JobInfo::id).startsWith("0000100").hasSize(100);

		// a page in the middle: a bisection among a million entries of one due time, then one window
		long due = first.jobs().get(0).dueAt().toEpochMilli();
		PageCursor middle = new PageCursor(due, "0500000");
		long ranges = RedisStats.commandStat(queue.getConnectionFactory(), "zrange", "calls");
		List<Object> replies = queue.scripts.waiting("big", JobState.DELAYED, 101, false, middle);
		long read = RedisStats.commandStat(queue.getConnectionFactory(), "zrange", "calls") - ranges;
		WaitingJobs.Read bucket = WaitingJobs.Read.decode("big", JobState.DELAYED, replies.get(0));
		// the entries examined, first in waiting.lua's reply
		assertThat(ScriptReplies.asLong(ScriptReplies.list(replies.get(0)).get(0))).isEqualTo(101);
		assertThat(bucket.listed()).extracting((row) -> row.job().id()).startsWith("0500001").hasSize(101);
		assertThat(read).isBetween(1L, 25L);
		WaitingJobPage page = boundedPage(factory, "core, last page", 1_000_001, 100, 0,
				() -> queue.waitingJobs("big", JobState.DELAYED, PageCursor.text(due, "0999950"), 100, false));
		assertThat(page.jobs()).hasSize(50).extracting(JobInfo::id).startsWith("0999951").endsWith("0999999", "template");
		assertThat(page.next()).isNull();
	}

	@Test
	void theBulkLoaderWritesTheRecordsTheSchedulerWrites() {
		// the invariant is checked after the test, over every record the loader wrote
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		queue.schedule(request("big", "template", "{\"a\":1}", Duration.ofDays(1)));
		loadDelayed(queue.getConnectionFactory(), queue.getNamespace(), "big", 25_000);
		assertThat(queue.stats().topics().get("big").delayed()).isEqualTo(25_001);
		JobInfo template = queue.find("big", "template").orElseThrow();
		assertThat(queue.find("big", "0024999").orElseThrow()).usingRecursiveComparison()
			.ignoringFields("id")
			.isEqualTo(template);
	}

	@Test
	void pagesListEveryDelayedJobOnceInDueOrderPastTheJobsOfOtherTopics() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		// more jobs of another topic, due earlier, than one page examines
		queue.scheduleAll(requests("other", DelayQueueAdmin.MAX_EXAMINED + 500, Duration.ofHours(1)));
		List<ScheduleRequest> mine = requests("mine", 30, Duration.ofHours(2));
		mine.forEach(queue::schedule);
		queue.scheduleAll(requests("third", 10, Duration.ofHours(3)));

		WaitingJobPage first = queue.waitingJobs("mine", JobState.DELAYED, null, 7, false);
		assertThat(first.jobs()).isEmpty();
		assertThat(first.next()).isNotNull();
		List<JobInfo> all = allPages(queue, "mine", JobState.DELAYED, 7);
		assertThat(all).extracting(JobInfo::id).containsExactlyElementsOf(mine.stream().map(ScheduleRequest::id).toList());
		assertThat(all).isSortedAccordingTo((a, b) -> a.dueAt().compareTo(b.dueAt()));
		assertThat(all).allMatch((job) -> job.state() == JobState.DELAYED && job.payload() != null);
		assertThat(allPages(queue, "other", JobState.DELAYED, 1_000)).hasSize(DelayQueueAdmin.MAX_EXAMINED + 500);
	}

	@Test
	void readyAndReservedJobsArePagedWithTheirDeadlinesAndRunNowAndCancelChangeTheLists() {
		RedisDelayQueue queue = this.queues.start();
		queue.scheduleAll(requests("work", 25, Duration.ZERO));
		await().untilAsserted(() -> assertThat(allPages(queue, "work", JobState.READY, 4)).hasSize(25));
		List<ReservedJob> reserved = queue.reserve("work", 10, Duration.ofMinutes(5));
		List<JobInfo> held = allPages(queue, "work", JobState.RESERVED, 3);
		assertThat(held).extracting(JobInfo::id)
			.containsExactlyInAnyOrderElementsOf(reserved.stream().map(ReservedJob::id).toList());
		assertThat(held).allMatch((job) -> job.reservedUntil() != null && job.state() == JobState.RESERVED);
		assertThat(held).isSortedAccordingTo((a, b) -> a.reservedUntil().compareTo(b.reservedUntil()));
		assertThat(allPages(queue, "work", JobState.READY, 4)).hasSize(15).allMatch((job) -> job.state() == JobState.READY);

		// run now and cancel, from a row of the DELAYED list, are reschedule and cancel
		queue.schedule(request("work", "later", "{}", Duration.ofHours(1)));
		queue.schedule(request("work", "never", "{}", Duration.ofHours(1)));
		assertThat(allPages(queue, "work", JobState.DELAYED, 10)).extracting(JobInfo::id).containsExactly("later", "never");
		queue.reschedule("work", "later", Duration.ZERO);
		assertThat(queue.cancel("work", "never")).isTrue();
		assertThat(allPages(queue, "work", JobState.DELAYED, 10)).isEmpty();
		await().untilAsserted(() -> assertThat(allPages(queue, "work", JobState.READY, 10)).extracting(JobInfo::id)
			.contains("later"));
		reserved.forEach((job) -> queue.finish(job));
	}

	@Test
	void aReadyPageReadsAndAnswersNoMoreJobsPerBucketThanThePageHolds() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		// READY at once (due now), in reverse due order of their ids: the page must pick, not cut
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 3_000; i++) {
			requests.add(request("wide", String.format("%05d", i), "{\"pad\":\"" + "x".repeat(200) + "\"}",
					Duration.ofMillis(-i)));
		}
		queue.scheduleAll(requests);
		List<Object> replies = queue.scripts.waiting("wide", JobState.READY, 3, true, null);
		WaitingJobs.Read bucket = WaitingJobs.Read.decode("wide", JobState.READY, replies.get(0));
		assertThat(bucket.listed()).hasSizeLessThanOrEqualTo(3);
		WaitingJobPage page = queue.waitingJobs("wide", JobState.READY, null, 2, false);
		assertThat(page.jobs()).extracting(JobInfo::id).containsExactly("02999", "02998");
		assertThat(allPages(queue, "wide", JobState.READY, 700)).hasSize(3_000)
			.isSortedAccordingTo((a, b) -> a.dueAt().compareTo(b.dueAt()));
	}

	@Test
	void pagesOfOneDueTimeSharedWithMoreJobsOfTopicsBeforeAndAfterListEachJobOnce() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(2).timerEnabled(false));
		java.time.Instant due = java.time.Instant.now().plus(Duration.ofHours(1)).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
		List<ScheduleRequest> all = new ArrayList<>();
		for (String topic : List.of("a", "b", "c")) {
			int count = topic.equals("b") ? 40 : 2 * DelayQueueAdmin.MAX_EXAMINED + 300;
			for (int i = 0; i < count; i++) {
				all.add(new ScheduleRequest(topic, String.format("%05d", i), "{}".getBytes(StandardCharsets.UTF_8), null,
						due, null, null, io.github.delayqueue.core.OnDuplicate.KEEP, Map.of(), null));
			}
		}
		queue.scheduleAll(all);
		List<JobInfo> b = allPages(queue, "b", JobState.DELAYED, 7);
		assertThat(b).extracting(JobInfo::id).doesNotHaveDuplicates().hasSize(40);
		assertThat(allPages(queue, "a", JobState.DELAYED, 1_000)).extracting(JobInfo::id).doesNotHaveDuplicates()
			.hasSize(2 * DelayQueueAdmin.MAX_EXAMINED + 300);
		assertThat(allPages(queue, "c", JobState.DELAYED, 999)).extracting(JobInfo::id).doesNotHaveDuplicates()
			.hasSize(2 * DelayQueueAdmin.MAX_EXAMINED + 300);
	}

	@Test
	void badArgumentsAreRefusedNamingTheRule() {
		RedisDelayQueue queue = this.queues.start((builder) -> builder.buckets(1).timerEnabled(false));
		assertThatIllegalArgumentException().isThrownBy(() -> queue.waitingJobs("t", JobState.DEAD, null, 10, false))
			.withMessage("state must be DELAYED, READY or RESERVED, was DEAD");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.waitingJobs("t", JobState.DELAYED, "nope", 10, false))
			.withMessageContaining("cursor must be the 'next' of a page of waiting jobs");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.waitingJobs("t", JobState.DELAYED, null, 0, false))
			.withMessageContaining("limit");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.waitingJobs("a:b", JobState.READY, null, 5, false))
			.withMessageContaining("topic");
	}

}
