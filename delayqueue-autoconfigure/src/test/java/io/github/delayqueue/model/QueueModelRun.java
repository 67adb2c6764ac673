package io.github.delayqueue.model;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

import io.github.delayqueue.core.DeadJobPage;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.FinishResult;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.Retention;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.ScheduleResult;
import io.github.delayqueue.core.WaitingJobPage;
import io.github.delayqueue.model.QueueModel.Definition;
import io.github.delayqueue.model.QueueModel.Job;
import io.github.delayqueue.model.QueueModel.ModelDivergence;
import io.github.delayqueue.model.QueueModel.ModelError;
import io.github.delayqueue.model.QueueModel.Moment;
import io.github.delayqueue.model.QueueModel.Plan;
import io.github.delayqueue.model.QueueModel.Take;
import io.github.delayqueue.model.QueueModel.Time;
import io.github.delayqueue.recurring.MisfirePolicy;
import io.github.delayqueue.recurring.OverlapPolicy;
import io.github.delayqueue.recurring.PutResult;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.recurring.RecurringSchedule;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.redis.TimerSteps;
import io.github.delayqueue.redis.TimerSteps.Promotion;
import io.github.delayqueue.support.TestConnections;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServer;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One seeded run of the model-based test: a generator draws operations from a
 * {@link SplittableRandom} with the run's seed and the model's state, each runs on a real
 * {@link RedisDelayQueue} and on the {@link QueueModel}, and their answers and states are
 * compared after every step.
 *
 * <p>
 * The run is independent of wall-clock races and replays from its seed: the queue's timer is
 * off and promotions (with TTR expiry) are steps of the run; due times and deadlines are
 * either now or in the past (READY at once), far ahead (hours: never due during a run), or
 * {@value #SHORT_MILLIS} ms ahead, and a promotion first waits until Redis's clock passed
 * every short one, so that it always finds the short ones due and no other; every step starts
 * in a later Redis millisecond than the step before, so that times set by different steps
 * are ordered as the steps are.
 *
 * <p>
 * Recurring jobs (a few names; every hour, every 1 or 2 s, or a fixed delay; every misfire
 * policy with thresholds from 1 ms, small max catch-ups, both overlap policies) are put,
 * paused, resumed, triggered and deleted; a "fire" moves a definition's next tick into the past
 * (just past, or several periods back so that several ticks came, some late) and fires its
 * bucket as the timer would. Each occurrence created is an ordinary job of the model from then
 * on, so every comparison below covers it; a tick of the schedule itself that comes during the
 * run is fired (on time or late) like any other. What a firing does depends on the now it
 * read: the model works it out for each millisecond the call may have read, and when those
 * differ, learns which it was from the definitions as stored after it. After each recurring
 * operation {@code list()} and {@code find} of every name are compared with the model
 * (version, paused, fired, skipped, misfired, next tick, last fire time, last occurrence and
 * its state).
 *
 * <p>
 * What is compared when:
 * <ul>
 * <li>every step: the operation's answer with the model's, exactly (created / state / due
 * time of each schedule, the jobs a reserve takes in their order with attempt, limit, token,
 * TTR, payload and times, the stale jobs of a finish, the promotion's counts, next due time
 * and announced topics, a dead page's jobs after its cursor, ...); after a promotion that
 * compacted, the bucket's ready lists entry by entry; the entries of the ready lists (every
 * priority's) that a reserve may have read (so that a bucket it skipped or read past is
 * known); after a reserve that took fewer than asked, that no bucket with READY jobs was left
 * unread within its look-ahead; {@code find} of the jobs the step touched (24 at most) and of
 * one more, priority included; the invariant ({@link QueueInvariant}) every
 * {@code invariantEvery} steps;</li>
 * <li>every {@code deepEvery} steps: every record (state, priority, attempt, limit, TTR, token,
 * times, payload), ready list of every priority entry by entry (tombstones included) and the
 * sentinel that heads a topic's first list, delayed, reserved and dead
 * index with scores, kept error and token counter, the recurring definitions and their next
 * ticks, as stored;</li>
 * <li>every {@code statsEvery} steps: {@code stats()} per topic and bucket; every 200 steps
 * {@code repair(false)}, which must find a clean queue; all of them at the end.</li>
 * </ul>
 * Times the model does not know exactly (a call's "now" is between two readings of Redis's
 * {@code TIME}) are learned from the first answer that shows them and must lie within those
 * bounds.
 *
 * <p>
 * Priorities: about a third of the jobs scheduled name one (the lowest, a low, the default
 * named, a high, the highest); bulk schedules use one for all their jobs or one per job, and a
 * block of replaced jobs may move to another priority, which leaves its entries in the old
 * list as tombstones of READY jobs. Wherever the run reads how many entries a topic's ready
 * lists hold in a bucket, it adds up the lists of every priority, without the sentinel.
 */
final class QueueModelRun {

	/** The "short" delay, back-off and TTR: due before the next promotion. */
	static final long SHORT_MILLIS = 3;

	private static final Duration SHORT = Duration.ofMillis(SHORT_MILLIS);

	private static final Duration LONG_TTR = Duration.ofHours(6);

	private static final Instant FAR_DUE_AT = Instant.parse("2200-01-01T00:00:00Z");

	private static final List<String> TOPICS = List.of("orders", "mail.v2", "Z_9-x");

	/** Ids of single operations: few, so that duplicates, replaces and stale tokens are common. */
	private static final List<String> IDS = List.of("1", "2", "10", "a", "B", "b", "a:b", "a:b:c", "\u00e9",
			"\u65e5\u672c", "x y", "-", "~", "ord-42", "Zz", "0");

	/** Ids of bulk schedules ("n0" to "n2999"). */
	private static final int BULK_IDS = 3_000;

	private static final int LOG_SIZE = 40;

	/** Names of recurring jobs. */
	private static final List<String> RECURRING_NAMES = List.of("r1", "r2", "r3", "r4");

	private static final Duration RECURRING_EVERY = Duration.ofHours(1);

	/** How close to a tick of the schedule a fire's own tick may be. */
	private static final long TICK_MARGIN = 5_000;

	private static final DateTimeFormatter TICK_FORMAT = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss", Locale.ROOT)
		.withZone(ZoneOffset.UTC);

	private static final Pattern TRIGGER_ID = Pattern
		.compile("^(.+)@(\\d{8}T\\d{6})(?:\\.(\\d{3}))?Z-trigger(?:~[1-9]\\d*)?$");

	private static final Pattern RECORD = Pattern
		.compile("^([A-Z])([a-eg-j]?)(\\d*),(\\d+),([0-9a-z]+),([0-9a-z]+),(-?[0-9a-z]+),(\\d*)$");

	/**
	 * The priorities a request names when it names one: the lowest, a low one, the default
	 * (named), a high one and the highest.
	 */
	private static final List<Integer> PRIORITIES = List.of(0, 2, 5, 8, 9);

	private final RedisTestServer server;

	private final Settings settings;

	private final SplittableRandom random;

	private final SplittableRandom checks;

	private final String namespace;

	private final int buckets;

	private final int batchSize;

	private final QueueModel model;

	private final Map<String, Integer> mix = new TreeMap<>();

	private final Map<String, Long> events = new TreeMap<>();

	private final ArrayDeque<String> log = new ArrayDeque<>();

	private final List<Handle> handles = new ArrayList<>();

	private final Set<String> touched = new LinkedHashSet<>();

	private LettuceConnectionFactory factory;

	private RedisDelayQueue queue;

	private StatefulRedisConnection<String, String> connection;

	private RedisCommands<String, String> redis;

	private int step;

	private long lastCallEnd;

	private int handleCount;

	private String cursorTopic;

	private String cursor;

	private long cursorDiedAt;

	/** Where the last bulk schedule of one topic began: the next one often covers it again. */
	private int lastBulkFirst;

	private String lastBulkTopic;

	/** The next steps, planned by an earlier one (a mass expiry after a bulk schedule). */
	private final ArrayDeque<Op> planned = new ArrayDeque<>();

	private String cursorId;

	/** The latest tick a fire used per recurring job name (also across a delete). */
	private final Map<String, Long> ticksUsed = new HashMap<>();

	/** The key of the latest occurrence a firing created, per recurring job. */
	private final Map<String, String> tickOccurrences = new HashMap<>();

	/**
	 * The recurring jobs triggered while not a fixed delay since a firing last created an
	 * occurrence: the trigger's occurrence may be the one a later fixed delay waits for.
	 */
	private final Set<String> triggeredBeforeFixedDelay = new HashSet<>();

	QueueModelRun(RedisTestServer server, Settings settings) {
		this.server = server;
		this.settings = settings;
		this.random = new SplittableRandom(settings.seed());
		this.checks = new SplittableRandom(~settings.seed());
		this.buckets = 1 + this.random.nextInt(4);
		this.batchSize = List.of(3, 40, 1500).get(this.random.nextInt(3));
		this.namespace = "model-" + UUID.randomUUID().toString().substring(0, 8);
		this.model = new QueueModel(this.buckets, this.batchSize, LONG_TTR.toMillis(), 3);
	}

	/**
	 * The settings of a run.
	 *
	 * @param seed the seed of the generator
	 * @param steps the steps to run
	 * @param invariantEvery check the invariant every this many steps
	 * @param deepEvery compare every record and index with the model every this many steps
	 * @param statsEvery compare {@code stats()} every this many steps
	 */
	record Settings(long seed, int steps, int invariantEvery, int deepEvery, int statsEvery) {
	}

	/**
	 * What a run did.
	 *
	 * @param seed its seed
	 * @param buckets its bucket count
	 * @param batchSize its promotion batch size
	 * @param steps the steps run
	 * @param millis how long it took
	 * @param mix how many operations of each kind
	 * @param events what the operations did (jobs promoted, expired, compactions, ...)
	 */
	record Result(long seed, int buckets, int batchSize, int steps, long millis, Map<String, Integer> mix,
			Map<String, Long> events) {

		@Override
		public String toString() {
			return "seed " + this.seed + ", " + this.buckets + " bucket(s), promotion batch " + this.batchSize + ": "
					+ this.steps + " steps in " + this.millis + " ms, no divergence\n  operations: " + this.mix
					+ "\n  effects: " + this.events;
		}

	}

	Result run() {
		long started = System.nanoTime();
		this.factory = TestConnections.lettuce(this.server, Duration.ofSeconds(60));
		this.connection = this.server.connect();
		this.redis = this.connection.sync();
		boolean passed = false;
		try {
			this.queue = RedisDelayQueue.builder(this.factory)
				.namespace(this.namespace)
				.buckets(this.buckets)
				.batchSize(this.batchSize)
				.defaultTtr(LONG_TTR)
				.defaultMaxAttempts(3)
				.timerEnabled(false)
				.retention("orders", new Retention(0, Duration.ofDays(1), true, 0, null))
				.retention("mail.v2", Retention.lastFailed(QueueModel.FAILED_LIMITS.get("mail.v2")))
				.build();
			this.lastCallEnd = redisNow();
			for (this.step = 1; this.step <= this.settings.steps(); this.step++) {
				runStep();
			}
			this.step = this.settings.steps();
			deepCompare();
			compareStats();
			assertInvariant();
			checkRepair();
			passed = true;
		}
		finally {
			if (passed) {
				deleteNamespace();
			}
			this.connection.close();
			this.factory.destroy();
		}
		return new Result(this.settings.seed(), this.buckets, this.batchSize, this.settings.steps(),
				(System.nanoTime() - started) / 1_000_000, this.mix, this.events);
	}

	// ------------------------------------------------------------------ one step

	private void runStep() {
		Op op = nextOp();
		String outcome = "";
		try {
			this.touched.clear();
			outcome = execute(op);
			this.mix.merge(op.kind(), 1, Integer::sum);
			findTouched();
			if (this.step % this.settings.invariantEvery() == 0) {
				assertInvariant();
			}
			if (this.step % this.settings.deepEvery() == 0) {
				deepCompare();
			}
			if (this.step % this.settings.statsEvery() == 0) {
				compareStats();
			}
			if (this.step % 200 == 0) {
				checkRepair();
			}
			pruneHandles();
			most("most jobs at once", this.model.size());
		}
		catch (AssertionError | RuntimeException ex) {
			throw new AssertionError(report(op, ex), ex);
		}
		remember(this.step + ": " + op + " -> " + outcome);
	}

	private void remember(String entry) {
		if (this.log.size() == LOG_SIZE) {
			this.log.removeFirst();
		}
		this.log.addLast(entry);
	}

	private String report(Op op, Throwable ex) {
		StringBuilder report = new StringBuilder();
		report.append((ex instanceof ModelDivergence) ? "The queue diverged from its model"
				: (ex instanceof AssertionError) ? "A check failed" : "The run failed");
		report.append(" at step ").append(this.step).append(" of run seed ").append(this.settings.seed());
		report.append(" (").append(this.buckets).append(" bucket(s), promotion batch ").append(this.batchSize);
		report.append(", namespace ").append(this.namespace).append(")\n  operation: ").append(op);
		report.append("\n  what: ").append(ex);
		report.append("\n  replay: -Dmodel.seed=").append(this.settings.seed()).append(" -Dmodel.runs=1 -Dmodel.steps=")
			.append(this.step);
		report.append("\n  the last ").append(this.log.size()).append(" steps before:");
		this.log.forEach((line) -> report.append("\n    ").append(line));
		return report.toString();
	}

	// ------------------------------------------------------------------ time

	private long redisNow() {
		List<String> time = this.redis.time();
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

	/**
	 * Waits until Redis's clock is past a time (a wait, not an assertion: the model knows what
	 * must happen whenever it ends).
	 */
	private long awaitRedisTimeAfter(long millis) {
		long now = redisNow();
		while (now <= millis) {
			LockSupport.parkNanos(200_000);
			now = redisNow();
		}
		return now;
	}

	/**
	 * The Redis-clock bounds of the script calls a step makes: from a reading in a later
	 * millisecond than the previous step's calls to a reading after the calls.
	 */
	private long startCalls() {
		return awaitRedisTimeAfter(this.lastCallEnd);
	}

	private Moment endCalls(long start) {
		long end = redisNow();
		this.lastCallEnd = end;
		return new Moment(start, end);
	}

	private static Moment copy(Moment window) {
		return new Moment(window.lo(), window.hi());
	}

	// ------------------------------------------------------------------ operations

	private String execute(Op op) {
		if (op instanceof Schedule schedule) {
			return schedule(schedule);
		}
		if (op instanceof ScheduleAll scheduleAll) {
			return scheduleAll(scheduleAll);
		}
		if (op instanceof Cancel cancel) {
			return cancel(cancel);
		}
		if (op instanceof Reschedule reschedule) {
			return reschedule(reschedule);
		}
		if (op instanceof Reserve reserve) {
			return reserve(reserve);
		}
		if (op instanceof Finish finish) {
			return finish(finish);
		}
		if (op instanceof FinishAndReserve finishAndReserve) {
			return finishAndReserve(finishAndReserve);
		}
		if (op instanceof Fail fail) {
			return fail(fail);
		}
		if (op instanceof Touch touch) {
			return touch(touch);
		}
		if (op instanceof Release release) {
			return release(release);
		}
		if (op instanceof ReplayMany replay) {
			return replayMany(replay);
		}
		if (op instanceof ReplayOne replay) {
			return replayOne(replay);
		}
		if (op instanceof Promote promote) {
			return promote(promote);
		}
		if (op instanceof DeadPage page) {
			return deadPage(page);
		}
		if (op instanceof WaitingPages pages) {
			return waitingPages(pages);
		}
		if (op instanceof PutRecurring put) {
			return putRecurring(put);
		}
		if (op instanceof FireRecurring fire) {
			return fireRecurring(fire);
		}
		if (op instanceof TriggerRecurring trigger) {
			return triggerRecurring(trigger);
		}
		if (op instanceof PauseRecurring pause) {
			return pauseRecurring(pause);
		}
		if (op instanceof ResumeRecurring resume) {
			return resumeRecurring(resume);
		}
		if (op instanceof DeleteRecurring delete) {
			return deleteRecurring(delete);
		}
		if (op instanceof Stats) {
			compareStats();
			return "compared";
		}
		checkRepair();
		return "clean";
	}

	private String schedule(Schedule op) {
		ScheduleRequest request = op.request();
		int b = this.queue.bucketOf(request.topic(), request.id());
		long start = startCalls();
		ScheduleResult result = this.queue.schedule(request);
		Moment now = endCalls(start);
		QueueModel.Scheduled expected = this.model.schedule(b, List.of(request), now).get(0);
		String key = QueueModel.key(request.topic(), request.id());
		compareScheduled(key, expected, result);
		this.touched.add(key);
		return (result.created() ? "created " : "kept ") + result.state();
	}

	private String scheduleAll(ScheduleAll op) {
		List<ScheduleRequest> requests = op.requests();
		// the engine's calls: per bucket in order of first appearance, SCHEDULE_BATCH jobs each
		Map<Integer, List<Integer>> byBucket = new LinkedHashMap<>();
		for (int i = 0; i < requests.size(); i++) {
			ScheduleRequest request = requests.get(i);
			byBucket.computeIfAbsent(this.queue.bucketOf(request.topic(), request.id()), (b) -> new ArrayList<>())
				.add(i);
		}
		long start = startCalls();
		List<ScheduleResult> results = this.queue.scheduleAll(requests);
		Moment window = endCalls(start);
		check(results.size() == requests.size(), "scheduleAll answered " + results.size() + " results for "
				+ requests.size() + " requests");
		int created = 0;
		for (Map.Entry<Integer, List<Integer>> entry : byBucket.entrySet()) {
			List<Integer> indexes = entry.getValue();
			for (int from = 0; from < indexes.size(); from += TimerSteps.SCHEDULE_BATCH) {
				List<Integer> chunk = indexes.subList(from, Math.min(indexes.size(), from + TimerSteps.SCHEDULE_BATCH));
				List<QueueModel.Scheduled> expected = this.model.schedule(entry.getKey(),
						chunk.stream().map(requests::get).toList(), copy(window));
				for (int k = 0; k < chunk.size(); k++) {
					ScheduleRequest request = requests.get(chunk.get(k));
					String key = QueueModel.key(request.topic(), request.id());
					compareScheduled(key + " (request " + chunk.get(k) + ")", expected.get(k), results.get(chunk.get(k)));
					created += results.get(chunk.get(k)).created() ? 1 : 0;
					this.touched.add(key);
				}
			}
		}
		count("scheduleAll requests", requests.size());
		most("largest scheduleAll", requests.size());
		return created + " of " + requests.size() + " created";
	}

	private void compareScheduled(String what, QueueModel.Scheduled expected, ScheduleResult actual) {
		check(expected.created() == actual.created() && expected.state() == actual.state().code(),
				"schedule of " + what + " answered created=" + actual.created() + " " + actual.state()
						+ ", the model says created=" + expected.created() + " " + expected.state());
		expected.due().observe(actual.dueAt().toEpochMilli(), "the due time answered for " + what);
	}

	private String cancel(Cancel op) {
		String key = QueueModel.key(op.topic(), op.id());
		int b = this.queue.bucketOf(op.topic(), op.id());
		long start = startCalls();
		boolean cancelled = this.queue.cancel(op.topic(), op.id());
		endCalls(start);
		boolean expected = this.model.cancel(b, key);
		check(cancelled == expected, "cancel of " + key + " answered " + cancelled + ", the model says " + expected);
		this.touched.add(key);
		return String.valueOf(cancelled);
	}

	private String reschedule(Reschedule op) {
		String key = QueueModel.key(op.topic(), op.id());
		int b = this.queue.bucketOf(op.topic(), op.id());
		long start = startCalls();
		RescheduleResult result = (op.delay() != null) ? this.queue.reschedule(op.topic(), op.id(), op.delay())
				: this.queue.rescheduleAt(op.topic(), op.id(), op.dueAt());
		Moment now = endCalls(start);
		int code = this.model.reschedule(b, key, (op.delay() != null) ? op.delay().toMillis() : null,
				(op.dueAt() != null) ? op.dueAt().toEpochMilli() : null, now);
		RescheduleResult expected = switch (code) {
			case 1 -> RescheduleResult.RESCHEDULED;
			case 0 -> RescheduleResult.NOT_FOUND;
			default -> RescheduleResult.NOT_WAITING;
		};
		check(result == expected, "reschedule of " + key + " answered " + result + ", the model says " + expected);
		this.touched.add(key);
		return result.toString();
	}

	private String reserve(Reserve op) {
		String topic = op.topic();
		int[] before = new int[this.buckets];
		for (int b = 0; b < this.buckets; b++) {
			before[b] = this.model.bucket[b].entries(topic);
		}
		for (int b = 0; b < this.buckets; b++) {
			most("most tombstones ahead of a reserve", leadingTombstones(b, topic));
		}
		long start = startCalls();
		List<ReservedJob> jobs = this.queue.reserve(topic, op.max(), op.ttr(), op.maxAttempts());
		Moment window = endCalls(start);
		int[] after = new int[this.buckets];
		for (int b = 0; b < this.buckets; b++) {
			after[b] = (int) storedEntries(b, topic);
		}
		long ready = this.model.counts(topic)[1];
		check(jobs.size() <= op.max(), "reserve of " + op.max() + " took " + jobs.size());
		// the jobs come bucket by bucket, in the order the reserve visited the buckets
		List<Integer> order = new ArrayList<>();
		List<List<ReservedJob>> segments = new ArrayList<>();
		for (ReservedJob job : jobs) {
			int b = this.queue.bucketOf(job.topic(), job.id());
			if (order.isEmpty() || order.get(order.size() - 1) != b) {
				check(!order.contains(b), "reserve took jobs of bucket " + b + " twice, apart: " + ids(jobs));
				order.add(b);
				segments.add(new ArrayList<>());
			}
			segments.get(segments.size() - 1).add(job);
		}
		long ttrOverride = (op.ttr() != null) ? op.ttr().toMillis() : 0;
		int maxOverride = (op.maxAttempts() != null) ? op.maxAttempts() : 0;
		Set<Integer> remainders = new TreeSet<>();
		int[] visitedWith = new int[this.buckets];
		int[] scannedIn = new int[this.buckets];
		int remaining = op.max();
		for (int s = 0; s < segments.size(); s++) {
			remainders.add(remaining);
			int b = order.get(s);
			Take take = this.model.planTake(b, topic, remaining);
			List<ReservedJob> segment = segments.get(s);
			check(ids(segment).equals(take.jobs().stream().map((job) -> job.id).toList()),
					"reserve took " + ids(segment) + " from bucket " + b + ", the model's ready list gives "
							+ take.jobs().stream().map((job) -> job.id).toList() + " for " + remaining);
			check(after[b] == before[b] - take.scanned(), "after reserve the ready lists of " + topic + " in bucket "
					+ b + " hold " + after[b] + " entries, the model says " + (before[b] - take.scanned()));
			Moment now = copy(window);
			now.observe(segment.get(0).deliveredAt().toEpochMilli(), "the delivery time of " + segment.get(0).id());
			this.model.applyTake(take, ttrOverride, maxOverride, now);
			countTake(take);
			compareReserved(b, segment);
			visitedWith[b] = remaining;
			scannedIn[b] = take.scanned();
			remaining -= segment.size();
		}
		if (remaining > 0) {
			remainders.add(remaining);
		}
		// the buckets that gave nothing: either not visited, or visited with some remainder
		for (int b = 0; b < this.buckets; b++) {
			if (order.contains(b)) {
				continue;
			}
			int scanned = before[b] - after[b];
			if (scanned == 0) {
				continue;
			}
			Take matching = null;
			for (int r : remainders) {
				Take take = this.model.planTake(b, topic, r);
				if (take.jobs().isEmpty() && take.scanned() == scanned) {
					matching = take;
					visitedWith[b] = r;
					break;
				}
			}
			check(matching != null, "reserve took nothing from bucket " + b + " but its ready lists of " + topic
					+ " went from " + before[b] + " to " + after[b] + " entries, which no visit explains");
			this.model.applyTake(matching, ttrOverride, maxOverride, copy(window));
			countTake(matching);
			scannedIn[b] = scanned;
			count("reserve visits past tombstones only", 1);
		}
		// fewer than asked: every bucket with READY jobs left was visited and its look-ahead used up
		if (jobs.size() < op.max()) {
			for (int b = 0; b < this.buckets; b++) {
				long left = this.model.bucket[b].jobs()
					.stream()
					.filter((job) -> job.state == 'R' && job.topic.equals(topic))
					.count();
				if (left > 0) {
					check(visitedWith[b] > 0 && scannedIn[b] == visitedWith[b] + QueueModel.TAKE_SLACK,
							"reserve of " + op.max() + " took " + jobs.size() + " of " + topic + " but bucket " + b
									+ " still has " + left + " READY (scanned " + scannedIn[b] + " entries)");
					count("reserves cut short by tombstones", 1);
				}
			}
		}
		count("jobs reserved", jobs.size());
		most("largest reserve", jobs.size());
		return jobs.size() + " of " + ready + " READY taken" + (jobs.isEmpty() ? "" : ": " + abbreviate(ids(jobs)));
	}

	/** The tombstones a take of a topic in a bucket looks at before its first job. */
	private int leadingTombstones(int b, String topic) {
		QueueModel.Bucket bucket = this.model.bucket[b];
		Set<String> seen = new HashSet<>();
		int n = 0;
		for (int p = JobConstraints.MAX_PRIORITY; p >= JobConstraints.MIN_PRIORITY; p--) {
			for (String key : bucket.list(topic, p)) {
				if (QueueModel.live(bucket.jobs.get(key), p, seen)) {
					return n;
				}
				n++;
			}
		}
		return n;
	}

	/** What a take shows of priorities, in the run's effects. */
	private void countTake(Take take) {
		count("jobs taken from a non-default priority list",
				take.jobs().stream().filter((job) -> job.priority != QueueModel.DEFAULT_PRIORITY).count());
		count("takes that read several priorities' lists", (take.lists() > 1) ? 1 : 0);
		count("entries skipped of READY jobs of another priority", take.otherPriority());
	}

	private void compareReserved(int b, List<ReservedJob> reserved) {
		for (ReservedJob job : reserved) {
			Job expected = this.model.find(b, QueueModel.key(job.topic(), job.id()));
			String what = "reserved job " + expected.key;
			check(job.attempt() == expected.attempt && job.maxAttempts() == expected.max
					&& job.token() == expected.token && job.ttr().toMillis() == expected.reservationTtr
					&& Arrays.equals(job.payload(), expected.payload) && job.headers().equals(expected.headers),
					what + " came as attempt " + job.attempt() + "/" + job.maxAttempts() + " token " + job.token()
							+ " ttr " + job.ttr().toMillis() + ", the model says " + expected.attempt + "/"
							+ expected.max + " token " + expected.token + " ttr " + expected.reservationTtr);
			expected.due.observe(job.dueAt().toEpochMilli(), "the due time of " + what);
			expected.created.observe(job.createdAt().toEpochMilli(), "the creation time of " + what);
			expected.deadline.observe(job.reservedUntil().toEpochMilli(), "the deadline of " + what);
			addHandle(job);
		}
	}

	private String finish(Finish op) {
		ReservedJob job = op.handle().job();
		int b = this.queue.bucketOf(job.topic(), job.id());
		long start = startCalls();
		boolean finished = this.queue.finish(job);
		endCalls(start);
		boolean expected = this.model.finish(b, List.of(key(job)), List.of(job.token())).get(0) == 1;
		check(finished == expected, "finish of " + op.handle() + " answered " + finished + ", the model says " + expected);
		this.touched.add(key(job));
		return String.valueOf(finished);
	}

	private String finishAndReserve(FinishAndReserve op) {
		List<ReservedJob> jobs = op.handles().stream().map(Handle::job).toList();
		String topic = jobs.get(0).topic();
		Map<Integer, List<ReservedJob>> byBucket = new LinkedHashMap<>();
		for (ReservedJob job : jobs) {
			byBucket.computeIfAbsent(this.queue.bucketOf(job.topic(), job.id()), (b) -> new ArrayList<>()).add(job);
		}
		Map<Integer, Integer> before = new HashMap<>();
		byBucket.keySet().forEach((b) -> before.put(b, this.model.bucket[b].entries(topic)));
		// a mark goes only with a take that finds the bucket empty, which only this thread runs:
		// the first bucket marked now is looked at, unless one before it is marked meanwhile
		int marked = byBucket.keySet()
			.stream()
			.filter((b) -> TimerSteps.isMarked(this.queue, topic, b))
			.findFirst()
			.orElse(-1);
		long start = startCalls();
		FinishResult result = this.queue.finishAndReserve(jobs, op.max(), op.ttr(), op.maxAttempts());
		Moment window = endCalls(start);
		List<ReservedJob> next = result.next();
		// the take goes with the first call on a bucket that this instance has marked for the
		// topic (which the model does not follow): the bucket of the jobs taken, else the one
		// whose ready lists lost tombstones, else none that changed anything
		int first = -1;
		if (op.max() > 0) {
			if (!next.isEmpty()) {
				first = this.queue.bucketOf(topic, next.get(0).id());
				check(byBucket.containsKey(first), "finishAndReserve reserved " + ids(next) + " from bucket " + first
						+ ", which none of its jobs is in");
			}
			else {
				for (int b : byBucket.keySet()) {
					if (storedEntries(b, topic) != before.get(b)) {
						first = b;
						break;
					}
				}
			}
		}
		if (op.max() > 0 && marked >= 0) {
			List<Integer> order = new ArrayList<>(byBucket.keySet());
			if (first >= 0) {
				check(order.indexOf(first) <= order.indexOf(marked), "finishAndReserve took from bucket " + first
						+ " past bucket " + marked + ", which was marked");
			}
			else {
				Take skipped = this.model.planTake(marked, topic, op.max());
				check(skipped.jobs().isEmpty() && skipped.scanned() == 0, "finishAndReserve took nothing, but bucket "
						+ marked + " was marked and the model's ready list there gives " + skipped.jobs().size()
						+ " job(s)");
			}
		}
		List<ReservedJob> stale = new ArrayList<>();
		Take take = null;
		for (Map.Entry<Integer, List<ReservedJob>> entry : byBucket.entrySet()) {
			List<ReservedJob> all = entry.getValue();
			for (int from = 0; from < all.size(); from += TimerSteps.FINISH_BATCH) {
				List<ReservedJob> group = all.subList(from, Math.min(all.size(), from + TimerSteps.FINISH_BATCH));
				if (take == null && entry.getKey() == first) {
					take = this.model.planTake(first, topic, op.max());
				}
				List<Integer> replies = this.model.finish(entry.getKey(), group.stream().map(QueueModelRun::key).toList(),
						group.stream().map(ReservedJob::token).toList());
				for (int i = 0; i < group.size(); i++) {
					if (replies.get(i) != 1) {
						stale.add(group.get(i));
					}
					this.touched.add(key(group.get(i)));
				}
			}
		}
		check(tokens(result.stale()).equals(tokens(stale)), "finishAndReserve answered stale " + tokens(result.stale())
				+ ", the model says " + tokens(stale));
		if (take == null) {
			check(next.isEmpty(), "finishAndReserve reserved " + ids(next) + " without a take the model knows of");
		}
		else {
			check(ids(next).equals(take.jobs().stream().map((job) -> job.id).toList()),
					"finishAndReserve reserved " + ids(next) + " next, the model's ready list of bucket " + first
							+ " gives " + take.jobs().stream().map((job) -> job.id).toList());
			int after = (int) storedEntries(first, topic);
			check(after == before.get(first) - take.scanned(), "after finishAndReserve the ready lists of " + topic
					+ " in bucket " + first + " hold " + after + " entries, the model says "
					+ (before.get(first) - take.scanned()));
			Moment now = copy(window);
			if (!next.isEmpty()) {
				now.observe(next.get(0).deliveredAt().toEpochMilli(), "the delivery time of " + next.get(0).id());
			}
			this.model.applyTake(take, (op.ttr() != null) ? op.ttr().toMillis() : 0,
					(op.maxAttempts() != null) ? op.maxAttempts() : 0, now);
			countTake(take);
			compareReserved(first, next);
		}
		count("jobs finished", jobs.size() - stale.size());
		most("largest finishAndReserve", jobs.size());
		count("jobs reserved", next.size());
		return (jobs.size() - stale.size()) + " finished, " + stale.size() + " stale, " + next.size() + " next";
	}

	private String fail(Fail op) {
		ReservedJob job = op.handle().job();
		int b = this.queue.bucketOf(job.topic(), job.id());
		long start = startCalls();
		FailResult result = (op.backOff() == null) ? this.queue.kill(job, op.error())
				: this.queue.fail(job, op.backOff(), op.error());
		Moment now = endCalls(start);
		int code = this.model.fail(b, key(job), job.token(), (op.backOff() != null) ? op.backOff().toMillis() : -1,
				JobConstraints.errorText(op.error()), now);
		FailResult expected = (code == 1) ? FailResult.RETRYING : (code == 2) ? FailResult.DEAD : FailResult.STALE;
		check(result == expected, op.kind() + " of " + op.handle() + " answered " + result + ", the model says " + expected);
		this.touched.add(key(job));
		return result.toString();
	}

	private String touch(Touch op) {
		ReservedJob job = op.handle().job();
		int b = this.queue.bucketOf(job.topic(), job.id());
		long start = startCalls();
		Optional<Instant> deadline = this.queue.touch(job, op.ttr());
		Moment now = endCalls(start);
		long ttr = ((op.ttr() != null) ? op.ttr() : job.ttr()).toMillis();
		Time expected = this.model.touch(b, key(job), job.token(), ttr, now);
		check(deadline.isPresent() == (expected != null), "touch of " + op.handle() + " answered " + deadline
				+ ", the model says " + ((expected != null) ? "held" : "stale"));
		deadline.ifPresent((instant) -> expected.observe(instant.toEpochMilli(), "the new deadline of " + op.handle()));
		this.touched.add(key(job));
		return deadline.map(Instant::toString).orElse("stale");
	}

	private String release(Release op) {
		List<ReservedJob> jobs = op.handles().stream().map(Handle::job).toList();
		long start = startCalls();
		int released = this.queue.release(jobs);
		endCalls(start);
		// each bucket's jobs are given back in one call, in the order given
		Map<Integer, List<ReservedJob>> byBucket = new LinkedHashMap<>();
		jobs.forEach((job) -> byBucket.computeIfAbsent(this.queue.bucketOf(job.topic(), job.id()), (b) -> new ArrayList<>())
			.add(job));
		int expected = 0;
		for (Map.Entry<Integer, List<ReservedJob>> entry : byBucket.entrySet()) {
			List<Map.Entry<String, Long>> given = entry.getValue()
				.stream()
				.map((job) -> Map.entry(key(job), job.token()))
				.toList();
			// over 1,000 take several script calls; a repeat there still goes back at its first place
			if (given.size() > 1_000) {
				count("releases of a bucket's jobs in several calls", 1);
				count("releases in several calls that repeat a reservation", (new HashSet<>(given).size() < given.size()) ? 1 : 0);
			}
			expected += this.model.release(entry.getKey(), given);
		}
		check(released == expected, op + " answered " + released + ", the model says " + expected);
		jobs.forEach((job) -> this.touched.add(key(job)));
		return String.valueOf(released);
	}

	private String replayMany(ReplayMany op) {
		Set<String> dead = new HashSet<>();
		this.model.dead(op.topic()).forEach((job) -> dead.add(job.key));
		long start = startCalls();
		int replayed = this.queue.replayDeadJobs(op.topic(), op.max()).count();
		Moment window = endCalls(start);
		int expected = 0;
		for (int b = 0; b < this.buckets && expected < op.max(); b++) {
			int left = 1;
			while (expected < op.max() && left > 0) {
				int[] outcome = this.model.replay(b, op.topic(), Math.min(TimerSteps.REPLAY_BATCH, op.max() - expected),
						null, copy(window));
				expected += outcome[0];
				left = outcome[1];
			}
		}
		check(replayed == expected, "replayDeadJobs(" + op.topic() + ", " + op.max() + ") replayed " + replayed
				+ ", the model says " + expected);
		for (String key : dead) {
			if (this.touched.size() < 64) {
				this.touched.add(key);
			}
		}
		count("jobs replayed", replayed);
		most("largest replay", replayed);
		return replayed + " replayed";
	}

	private String replayOne(ReplayOne op) {
		String key = QueueModel.key(op.topic(), op.id());
		int b = this.queue.bucketOf(op.topic(), op.id());
		long start = startCalls();
		boolean replayed = this.queue.replayDead(op.topic(), op.id());
		Moment now = endCalls(start);
		boolean expected = this.model.replay(b, op.topic(), 1, key, now)[0] == 1;
		check(replayed == expected, "replayDead of " + key + " answered " + replayed + ", the model says " + expected);
		this.touched.add(key);
		count("jobs replayed", replayed ? 1 : 0);
		return String.valueOf(replayed);
	}

	private String promote(Promote op) {
		// every short due time and deadline passes first; far ones are hours away
		long now = redisNow();
		long latest = this.model.latestShortTime(now + Duration.ofHours(1).toMillis());
		awaitRedisTimeAfter(Math.max(latest, this.lastCallEnd));
		List<Integer> targets = new ArrayList<>();
		if (op.bucket() < 0) {
			for (int b = 0; b < this.buckets; b++) {
				targets.add(b);
			}
		}
		else {
			targets.add(op.bucket());
		}
		StringBuilder outcome = new StringBuilder();
		for (int b : targets) {
			List<String> tombstoneTopics = op.guard() ? tombstoneTopics(b) : List.of();
			long start = awaitRedisTimeAfter(this.lastCallEnd);
			Map<String, List<ReservedJob>> reserved = new LinkedHashMap<>();
			Promotion promotion = op.offers().isEmpty() ? TimerSteps.promote(this.queue, b, op.guard())
					: TimerSteps.promoteOffering(this.queue, b, offers(op.offers()), reserved);
			long end = redisNow();
			this.lastCallEnd = end;
			new Moment(Math.max(start, latest + 1), end).observe(promotion.redisMillis(), "the time of promotion");
			QueueModel.Promoted expected = this.model.promote(b, promotion.redisMillis(), op.guard(), tombstoneTopics,
					op.offers());
			Map<String, List<String>> expectedReserved = new LinkedHashMap<>();
			expected.reserved().forEach((topic, jobs) -> expectedReserved.put(topic, jobs.stream().map((job) -> job.id).toList()));
			Map<String, List<String>> actualReserved = new LinkedHashMap<>();
			reserved.forEach((topic, jobs) -> actualReserved.put(topic, ids(jobs)));
			check(actualReserved.equals(expectedReserved) && new ArrayList<>(actualReserved.keySet())
				.equals(new ArrayList<>(expectedReserved.keySet())), "promote of bucket " + b + " reserved "
						+ actualReserved + " for " + op.offers() + ", the model says " + expectedReserved);
			reserved.values().forEach((jobs) -> compareReserved(b, jobs));
			count("jobs reserved by a timer step for an offer", reserved.values().stream().mapToInt(List::size).sum());
			check(promotion.moved() == expected.moved() && promotion.expired() == expected.expired(),
					"promote of bucket " + b + " moved " + promotion.moved() + " and expired " + promotion.expired()
							+ ", the model says " + expected.moved() + " and " + expected.expired());
			if (expected.nextDue() != Long.MIN_VALUE) {
				check(promotion.nextDueMillis() == expected.nextDue(), "promote of bucket " + b + " answered next due "
						+ promotion.nextDueMillis() + ", the model says " + expected.nextDue());
			}
			Set<String> topics = new TreeSet<>(expected.topics());
			topics.addAll(expected.announced());
			check(new TreeSet<>(promotion.topics()).equals(topics), "promote of bucket " + b + " announced "
					+ promotion.topics() + ", the model says " + topics);
			count("jobs promoted", expected.moved());
			count("reservations expired", expected.expired());
			count("deaths by TTR", expected.dead());
			count("ready lists compacted", expected.compactions());
			count("ready lists compacted in part", expected.partialCompactions());
			if (expected.compactions() > 0) {
				// what the compactions left, and the jobs pushed after them
				compareReadyLists(b);
			}
			most("largest promotion", expected.moved() + expected.expired());
			outcome.append("b").append(b).append(": ").append(promotion.moved()).append(" moved, ")
				.append(promotion.expired()).append(" expired; ");
		}
		return outcome.toString();
	}

	private static List<TimerSteps.Offer> offers(List<QueueModel.Offer> offers) {
		return offers.stream()
			.map((offer) -> new TimerSteps.Offer(offer.topic(), offer.max(), offer.ttr(), offer.maxAttempts()))
			.toList();
	}

	/**
	 * The topics of the fields {@code T:<topic>} of a bucket's stats hash, in the order Redis
	 * reads them (a guard re-check compacts in that order).
	 */
	private List<String> tombstoneTopics(int b) {
		List<String> topics = new ArrayList<>();
		for (String name : this.redis.hkeys(prefix(b) + "stats")) {
			if (name.startsWith("T:")) {
				topics.add(name.substring(2));
			}
		}
		return topics;
	}

	private String deadPage(DeadPage op) {
		boolean resume = op.resume() && this.cursor != null;
		String topic = resume ? this.cursorTopic : op.topic();
		long start = startCalls();
		DeadJobPage page = this.queue.deadJobs(topic, resume ? this.cursor : null, op.limit(), op.payloads());
		endCalls(start);
		List<Job> dead = this.model.dead(topic);
		List<Job> after = new ArrayList<>();
		for (Job job : dead) {
			long died = job.died.exactly("the time of death of " + job.key);
			if (!resume || died > this.cursorDiedAt || (died == this.cursorDiedAt
					&& QueueModel.KEY_ORDER.compare(job.key, QueueModel.key(topic, this.cursorId)) > 0)) {
				after.add(job);
			}
		}
		List<Job> expected = after.subList(0, Math.min(op.limit(), after.size()));
		check(page.total() == dead.size(), "the dead page of " + topic + " says " + page.total()
				+ " DEAD, the model has " + dead.size());
		check(page.jobs().stream().map(JobInfo::id).toList().equals(expected.stream().map((job) -> job.id).toList()),
				"the dead page of " + topic + (resume ? " after " + this.cursorDiedAt + "/" + this.cursorId : "")
						+ " holds " + page.jobs().stream().map(JobInfo::id).toList() + ", the model says "
						+ expected.stream().map((job) -> job.id).toList());
		check((page.next() != null) == (after.size() > op.limit()), "the dead page of " + topic + " has next "
				+ page.next() + " but the model has " + (after.size() - expected.size()) + " more");
		for (int i = 0; i < expected.size(); i++) {
			compareInfo(expected.get(i), page.jobs().get(i), op.payloads(), "dead page entry");
		}
		if (page.next() != null) {
			JobInfo last = page.jobs().get(page.jobs().size() - 1);
			this.cursorTopic = topic;
			this.cursor = page.next();
			this.cursorDiedAt = last.diedAt().toEpochMilli();
			this.cursorId = last.id();
		}
		else {
			this.cursor = null;
		}
		return page.jobs().size() + " of " + page.total() + (resume ? " (resumed)" : "");
	}

	/**
	 * Every page of a topic's waiting jobs of one state: together the model's jobs of that state
	 * in page order (READY: when each bucket's ready lists hold no more entries than a page
	 * examines), each as the model has it; then maybe runs one DELAYED row now or cancels a row.
	 */
	private String waitingPages(WaitingPages op) {
		char state = op.state().code();
		List<JobInfo> listed = new ArrayList<>();
		String cursor = null;
		int pages = 0;
		do {
			WaitingJobPage page = this.queue.waitingJobs(op.topic(), op.state(), cursor, op.limit(), op.payloads());
			check(page.jobs().size() <= op.limit(), "a page of " + op + " holds " + page.jobs().size() + " jobs");
			listed.addAll(page.jobs());
			cursor = page.next();
			pages++;
		}
		while (cursor != null);
		List<Job> jobs = new ArrayList<>();
		boolean complete = true;
		for (int b = 0; b < this.model.buckets; b++) {
			for (Job job : this.model.bucket[b].jobs.values()) {
				if (job.state == state && job.topic.equals(op.topic())) {
					jobs.add(job);
				}
			}
			complete = complete && (state != 'R' || storedEntries(b, op.topic()) <= DelayQueueAdmin.MAX_EXAMINED);
		}
		Map<String, Job> byId = new HashMap<>();
		jobs.forEach((job) -> byId.put(job.id, job));
		List<String> ids = listed.stream().map(JobInfo::id).toList();
		check(new HashSet<>(ids).size() == ids.size(), "the pages of " + op + " list a job twice: " + abbreviate(ids.toString()));
		check(byId.keySet().containsAll(ids) && (!complete || ids.size() == jobs.size()), "the pages of " + op
				+ " list " + abbreviate(new TreeSet<>(ids).toString()) + ", the model has "
				+ abbreviate(new TreeSet<>(byId.keySet()).toString()));
		for (JobInfo info : listed) {
			compareInfo(byId.get(info.id()), info, op.payloads(), "waiting page entry");
		}
		// every listed time is known exactly now
		List<String> expected = listed.stream()
			.map((info) -> byId.get(info.id()))
			.sorted(QueueModel.order((job) -> ((state == 'S') ? job.deadline : job.due).lo()))
			.map((job) -> job.id)
			.toList();
		check(ids.equals(expected), "the pages of " + op + " list " + abbreviate(ids.toString())
				+ " in another order than the model's " + abbreviate(expected.toString()));
		if (!listed.isEmpty() && state != 'S' && this.random.nextInt(3) == 0) {
			// a row's buttons: run now (a DELAYED job only) or cancel
			String id = listed.get(this.random.nextInt(listed.size())).id();
			this.planned.add((state == 'D' && this.random.nextBoolean())
					? new Reschedule(op.topic(), id, Duration.ZERO, null) : new Cancel(op.topic(), id));
		}
		return listed.size() + " in " + pages + " page(s)";
	}

	// ------------------------------------------------------------------ recurring jobs

	private String putRecurring(PutRecurring op) {
		RecurringJob job = op.job();
		int b = bucketOfName(job.getName());
		long start = startCalls();
		PutResult result = this.queue.getRecurringJobs().put(job);
		Moment now = endCalls(start);
		PutResult expected = this.model.putRecurring(b, job, spec(job), now);
		check(result == expected, "put of recurring job " + job.getName() + " answered " + result
				+ ", the model says " + expected);
		compareRecurring();
		return result.toString();
	}

	private String pauseRecurring(PauseRecurring op) {
		long start = startCalls();
		boolean paused = this.queue.getRecurringJobs().pause(op.name());
		endCalls(start);
		boolean expected = this.model.pauseRecurring(op.name());
		check(paused == expected, "pause of recurring job " + op.name() + " answered " + paused + ", the model says "
				+ expected);
		compareRecurring();
		return String.valueOf(paused);
	}

	private String resumeRecurring(ResumeRecurring op) {
		long start = startCalls();
		boolean resumed = this.queue.getRecurringJobs().resume(op.name());
		Moment now = endCalls(start);
		boolean expected = this.model.resumeRecurring(op.name(), now);
		check(resumed == expected, "resume of recurring job " + op.name() + " answered " + resumed
				+ ", the model says " + expected);
		compareRecurring();
		return String.valueOf(resumed);
	}

	private String deleteRecurring(DeleteRecurring op) {
		long start = startCalls();
		boolean deleted = this.queue.getRecurringJobs().delete(op.name());
		endCalls(start);
		boolean expected = this.model.deleteRecurring(op.name());
		check(deleted == expected, "delete of recurring job " + op.name() + " answered " + deleted
				+ ", the model says " + expected);
		this.tickOccurrences.remove(op.name());
		this.triggeredBeforeFixedDelay.remove(op.name());
		compareRecurring();
		return String.valueOf(deleted);
	}

	private String triggerRecurring(TriggerRecurring op) {
		String name = op.name();
		long start = startCalls();
		Optional<String> id = this.queue.getRecurringJobs().trigger(name);
		Moment now = endCalls(start);
		Definition d = this.model.definitions.get(name);
		check(id.isPresent() == (d != null), "trigger of recurring job " + name + " answered " + id
				+ ", the model says " + ((d != null) ? "an occurrence" : "none"));
		if (d == null) {
			compareRecurring();
			return "none";
		}
		// the id names the time the definition was read, within the call
		Matcher parts = TRIGGER_ID.matcher(id.get());
		check(parts.matches() && parts.group(1).equals(name), "trigger of " + name + " answered the id " + id.get());
		long tick = LocalDateTime.parse(parts.group(2), TICK_FORMAT).toInstant(ZoneOffset.UTC).toEpochMilli()
				+ ((parts.group(3) != null) ? Integer.parseInt(parts.group(3)) : 0);
		check(tick >= now.lo() && tick <= now.hi(), "trigger of " + name + " answered the id " + id.get()
				+ ", whose time " + tick + " is outside the call's " + now);
		String expectedId = occurrenceId(d, tick, true);
		check(expectedId.equals(id.get()), "trigger of " + name + " answered the id " + id.get()
				+ ", the model says " + expectedId);
		boolean running = tickOccurrenceRuns(d) != null;
		Job made = this.model.triggerRecurring(d, id.get(), now);
		String key = QueueModel.key(d.job.getTopic(), id.get());
		this.touched.add(key);
		count((made != null) ? "occurrences triggered" : "triggers that kept a job", 1);
		if (made != null && running) {
			count("triggers while a fired occurrence was in the queue, "
					+ ((d.job.getSchedule().getDelay() != null) ? "fixed delay" : d.job.getOverlapPolicy()), 1);
		}
		if (d.job.getSchedule().getDelay() == null) {
			this.triggeredBeforeFixedDelay.add(name);
		}
		if (op.cancelThenFire()) {
			this.planned.addFirst(new FireRecurring(name, this.random.nextInt(5), false, this.random.nextInt(1_000)));
			this.planned.addFirst(new Cancel(d.job.getTopic(), id.get()));
		}
		compareRecurring();
		return key + ((made != null) ? " created" : " kept");
	}

	/**
	 * Moves the definition's next tick into the past (when it exists and runs), and fires its
	 * bucket: every definition of the bucket whose tick came fires. What a firing does depends on
	 * the now it read its due definitions at (which ticks came, which are late, the next tick):
	 * the model works it out for every millisecond the call may have read, and when those differ,
	 * learns which it was from what the definitions read afterwards.
	 */
	private String fireRecurring(FireRecurring op) {
		String name = op.name();
		int b = bucketOfName(name);
		Definition target = this.model.definitions.get(name);
		StringBuilder outcome = new StringBuilder();
		if (target != null && !target.paused) {
			long tick = fireTick(op, target);
			this.redis.zadd(prefix(b) + "recurring-due", tick, name);
			target.nextTicks = new TreeSet<>(Set.of(tick));
			outcome.append(name).append(" due at ").append(tick).append("; ");
		}
		long start = startCalls();
		List<String> topics = TimerSteps.fireRecurring(this.queue, b);
		Moment window = endCalls(start);
		List<Definition> defs = this.model.definitions(b);
		if (window.hi() - window.lo() > 100_000) {
			throw new ModelError("the firing of bucket " + b + " took more than 100 s: " + window);
		}
		// the plans for each now the firing may have read, the same ones run together
		List<Candidate> candidates = new ArrayList<>();
		for (long n = window.lo(); n <= window.hi(); n++) {
			List<Plan> plans = new ArrayList<>();
			for (Definition d : defs) {
				plans.add(this.model.plan(d, n));
			}
			Candidate last = candidates.isEmpty() ? null : candidates.get(candidates.size() - 1);
			if (last != null && last.plans.equals(plans)) {
				last.hi = n;
			}
			else {
				candidates.add(new Candidate(n, n, plans));
			}
		}
		Map<String, RecurringJobInfo> infos = new HashMap<>();
		Candidate chosen = candidates.get(0);
		if (candidates.size() > 1) {
			count("firings told apart by what they stored", 1);
			for (Definition d : defs) {
				infos.put(d.name, info(d.name));
			}
			List<Candidate> matching = candidates.stream().filter((c) -> matches(c, defs, infos)).toList();
			if (matching.size() != 1) {
				StringBuilder read = new StringBuilder();
				infos.values().forEach((info) -> read.append("\n    ").append(info));
				String what = "the firing of bucket " + b + " in " + window + " did what "
						+ ((matching.isEmpty()) ? "none" : matching.size()) + " of its plans say: " + candidates
						+ ", the recurring jobs read:" + read;
				if (matching.isEmpty()) {
					throw new ModelDivergence(what);
				}
				throw new ModelError(what);
			}
			chosen = matching.get(0);
		}
		Moment dueNow = copy(window);
		dueNow.narrow(chosen.lo, chosen.hi, "the now of the firing of bucket " + b);
		// a next tick after now (a fixed delay's) tells now
		for (int i = 0; i < defs.size(); i++) {
			Plan plan = chosen.plans.get(i);
			if (plan != null && plan.nextTick().relative()) {
				Definition d = defs.get(i);
				RecurringJobInfo info = infos.computeIfAbsent(d.name, this::info);
				dueNow.observe(millisOrMinusOne(info.nextFireTime()) - plan.nextTick().value(),
						"the now of the firing of " + d.name + " (its next tick minus " + plan.nextTick().value() + " ms)");
			}
		}
		Moment fireNow = new Moment(dueNow.lo(), window.hi());
		// in the order the firing reads them: by tick, then name
		List<Integer> order = new ArrayList<>();
		Map<String, Long> ticks = new HashMap<>();
		for (int i = 0; i < defs.size(); i++) {
			if (chosen.plans.get(i) != null) {
				order.add(i);
				ticks.put(defs.get(i).name, defs.get(i).nextTick());
			}
		}
		order.sort(Comparator.comparingLong((Integer i) -> ticks.get(defs.get(i).name))
			.thenComparing((i) -> defs.get(i).name, QueueModel.KEY_ORDER));
		List<String> expectedTopics = new ArrayList<>();
		for (int i : order) {
			Definition d = defs.get(i);
			Plan plan = chosen.plans.get(i);
			long tick = ticks.get(d.name);
			if (tick > window.lo()) {
				count("ticks that came during a firing", 1);
			}
			this.ticksUsed.merge(d.name, tick, Math::max);
			if (plan.result() == 'f') {
				long notAfter = plan.occurrences()
					.stream()
					.filter((o) -> o.tick().exactly(dueNow, "the tick of an occurrence of " + d.name) <= d.lastScheduled)
					.count();
				count("occurrences not made: tick not after the last scheduled", notAfter);
				if (notAfter > 0 && d.job.getSchedule().getDelay() != null) {
					count("fixed delays held back by a later tick scheduled before", 1);
				}
			}
			Job running = tickOccurrenceRuns(d);
			List<Job> made = this.model.fire(d, plan, dueNow, fireNow, (t) -> occurrenceId(d, t, false));
			checkWatch(d, plan, running, made);
			for (Job job : made) {
				this.touched.add(job.key);
				if (job.state == 'R' && !expectedTopics.contains(job.topic)) {
					expectedTopics.add(job.topic);
				}
			}
			long ticksCovered = plan.skipped() + plan.occurrences().size();
			count(switch (plan.result()) {
				case 'l' -> "fixed delays that looked";
				case 'k' -> "firings skipped for overlap";
				default -> (d.job.getSchedule().getDelay() != null) ? "fixed delays fired" : "fixed rates fired";
			}, 1);
			count("ticks fired", ticksCovered);
			count("ticks misfired", plan.misfired());
			count("occurrences fired", made.size());
			if (ticksCovered > 1) {
				count("catch-ups of several ticks, " + d.job.getMisfirePolicy(), 1);
			}
			if (plan.result() == 'f' && made.size() < plan.occurrences().size()) {
				count("occurrences not made (fired before, or the key exists)", plan.occurrences().size() - made.size());
			}
			outcome.append(d.name).append('@').append(tick).append(' ').append(plan.result()).append(": ");
			outcome.append(made.stream().map((job) -> job.key).toList()).append(" of ").append(ticksCovered)
				.append(" tick(s), ").append(plan.misfired()).append(" late; ");
		}
		check(topics.equals(expectedTopics), "the firing of bucket " + b + " answered the topics " + topics
				+ ", the model says " + expectedTopics);
		compareRecurring();
		return (outcome.length() > 0) ? outcome.toString() : "nothing due";
	}

	/**
	 * The latest occurrence a firing created for a definition while it is in the queue and
	 * never died (a DEAD one replayed may run beside a later one), else null.
	 */
	private Job tickOccurrenceRuns(Definition d) {
		String key = this.tickOccurrences.get(d.name);
		Job job = (key != null) ? this.model.bucket[d.bucket].jobs.get(key) : null;
		return (job != null && job.state != 'X' && job.death == 0) ? job : null;
	}

	/**
	 * What a firing must do whatever the model's rules, which a trigger must not change:
	 * overlap SKIP creates nothing while the latest occurrence fired runs, and a fixed delay
	 * waits for the occurrence it created and for nothing else.
	 */
	private void checkWatch(Definition d, Plan plan, Job running, List<Job> made) {
		if (running != null && d.job.getOverlapPolicy() == OverlapPolicy.SKIP && d.job.getSchedule().getDelay() == null) {
			check(made.isEmpty(), "overlap SKIP of recurring job " + d.name + " created " + made.size()
					+ " occurrence(s) while " + running.key + " was " + running.state);
			if (plan.result() == 'k') {
				count("firings skipped for overlap while a fired occurrence ran", 1);
			}
		}
		if (d.job.getSchedule().getDelay() != null && plan.result() == 'l'
				&& !this.triggeredBeforeFixedDelay.contains(d.name)) {
			String key = this.tickOccurrences.get(d.name);
			Job last = (key != null) ? this.model.bucket[d.bucket].jobs.get(key) : null;
			check(key == null || (last != null && last.state != 'X'),
					"fixed delay " + d.name + " waits although the occurrence it created, " + key + ", left the queue");
		}
		if (!made.isEmpty()) {
			this.tickOccurrences.put(d.name, made.get(made.size() - 1).key);
			this.triggeredBeforeFixedDelay.remove(d.name);
		}
	}

	/** The plans of a firing (one per definition of the bucket) for a stretch of its now. */
	private static final class Candidate {

		final long lo;

		long hi;

		final List<Plan> plans;

		Candidate(long lo, long hi, List<Plan> plans) {
			this.lo = lo;
			this.hi = hi;
			this.plans = plans;
		}

		@Override
		public String toString() {
			return "\n    now [" + this.lo + ".." + this.hi + "]: " + this.plans;
		}

	}

	private RecurringJobInfo info(String name) {
		Optional<RecurringJobInfo> info = this.queue.getRecurringJobs().find(name);
		check(info.isPresent(), "recurring job " + name + " is gone after a firing");
		return info.get();
	}

	/** Whether the definitions read what a candidate's plans leave. */
	private boolean matches(Candidate candidate, List<Definition> defs, Map<String, RecurringJobInfo> infos) {
		for (int i = 0; i < defs.size(); i++) {
			Definition d = defs.get(i);
			Plan plan = candidate.plans.get(i);
			RecurringJobInfo info = infos.get(d.name);
			long[] counters = this.model.predict(d, plan, candidate.lo,
					(t) -> QueueModel.key(d.job.getTopic(), occurrenceId(d, t, false)));
			if (info.fired() != counters[0] || info.skipped() != counters[1] || info.misfired() != counters[2]) {
				return false;
			}
			long next = millisOrMinusOne(info.nextFireTime());
			if (plan == null) {
				if (!d.paused && next != d.nextTick()) {
					return false;
				}
			}
			else if (plan.nextTick().relative()) {
				long at = next - plan.nextTick().value();
				if (at < candidate.lo || at > candidate.hi) {
					return false;
				}
			}
			else if (next != plan.nextTick().value()) {
				return false;
			}
		}
		return true;
	}

	/**
	 * A tick for a fire of a definition. A fixed delay: some time in the last seconds. A short
	 * fixed rate: some periods back, so that several ticks came (and, with a short misfire
	 * threshold, are late), or now and then its latest tick fired again. An hourly one: a second
	 * just past (or one ms after the latest tick fired, when that is later), or now and then the
	 * latest one again; never one with a tick of the schedule between it and the firing: the
	 * schedule's tick instead, once it came.
	 */
	private long fireTick(FireRecurring op, Definition d) {
		long now = redisNow();
		RecurringSchedule schedule = d.job.getSchedule();
		if (schedule.getDelay() != null) {
			return now - op.back() * 1_000L - op.jitter();
		}
		long period = schedule.getPeriod().toMillis();
		if (period < RECURRING_EVERY.toMillis()) {
			if (op.again() && d.lastScheduled >= 0) {
				count("ticks fired again", 1);
				return d.lastScheduled;
			}
			return now - op.back() * period - op.jitter() * period / 1_000;
		}
		long last = Math.max(this.ticksUsed.getOrDefault(d.name, -1L), d.lastScheduled);
		if (op.again() && last >= 0 && (nextTick(d.job, last) > now + TICK_MARGIN || last < now - 3 * TICK_MARGIN)) {
			count("ticks fired again", 1);
			return last;
		}
		long tick = Math.max(now / 1_000 * 1_000 - op.back() * 1_000L, last + 1);
		long following = nextTick(d.job, tick);
		if (following <= now + TICK_MARGIN) {
			awaitRedisTimeAfter(following);
			count("fires on a tick of the schedule", 1);
			return following;
		}
		return tick;
	}

	private static long nextTick(RecurringJob job, long after) {
		Instant next = job.getSchedule().next(Instant.ofEpochMilli(after));
		return (next != null) ? next.toEpochMilli() : Long.MAX_VALUE;
	}

	/** The bucket of a recurring job: crc32 of its name mod the bucket count. */
	private int bucketOfName(String name) {
		CRC32 crc = new CRC32();
		crc.update(name.getBytes(StandardCharsets.UTF_8));
		return (int) (crc.getValue() % this.buckets);
	}

	/**
	 * The id of an occurrence, as documented: {@code <name>@<tick>} (UTC, {@code .SSS} when it
	 * has millis), {@code -trigger} for a trigger, then {@code ~<n>} with the least n that puts
	 * it into the definition's bucket.
	 */
	private String occurrenceId(Definition d, long tick, boolean trigger) {
		long millis = Math.floorMod(tick, 1_000L);
		String base = d.name + "@" + TICK_FORMAT.format(Instant.ofEpochMilli(tick))
				+ ((millis != 0) ? String.format(Locale.ROOT, ".%03d", millis) : "") + "Z" + (trigger ? "-trigger" : "");
		String id = base;
		for (int n = 1; this.queue.bucketOf(d.job.getTopic(), id) != d.bucket; n++) {
			id = base + "~" + n;
		}
		return id;
	}

	/** Every field of a definition, as put compares them. */
	private static String spec(RecurringJob job) {
		StringBuilder spec = new StringBuilder().append(job.getTopic())
			.append('|')
			.append(job.getSchedule())
			.append('|')
			.append(millis(job.getTtr()))
			.append('|')
			.append(job.getMaxAttempts())
			.append('|')
			.append(job.getMisfirePolicy())
			.append('|')
			.append(job.getMisfireThreshold().toMillis())
			.append('|')
			.append(job.getMaxCatchUp())
			.append('|')
			.append(job.getOverlapPolicy())
			.append('|')
			.append(job.isDeclared())
			.append('|');
		job.getHeaders().forEach((name, value) -> spec.append(name).append('=').append(value).append('\n'));
		return spec.append('|').append(new String(job.getPayload(), StandardCharsets.ISO_8859_1)).toString();
	}

	/**
	 * {@code list()} and {@code find} of every name against the model; learns each definition's
	 * next tick.
	 */
	private void compareRecurring() {
		RecurringJobs recurring = this.queue.getRecurringJobs();
		List<String> listed = recurring.list().stream().map(RecurringJobInfo::name).toList();
		check(listed.equals(List.copyOf(this.model.definitions.keySet())), "list() of the recurring jobs answered "
				+ listed + ", the model has " + this.model.definitions.keySet());
		for (String name : RECURRING_NAMES) {
			Definition d = this.model.definitions.get(name);
			Optional<RecurringJobInfo> found = recurring.find(name);
			check(found.isPresent() == (d != null), "find of recurring job " + name + " answered "
					+ found.map(Object::toString).orElse("none") + ", the model says " + ((d != null) ? d : "none"));
			if (d == null) {
				continue;
			}
			RecurringJobInfo info = found.get();
			check(info.version() == d.version && info.paused() == d.paused && info.fired() == d.fired
					&& info.skipped() == d.skipped && info.misfired() == d.misfired,
					"recurring job " + name + " reads version " + info.version() + (info.paused() ? " paused" : "")
							+ ", fired " + info.fired() + ", skipped " + info.skipped() + ", misfired " + info.misfired()
							+ ", the model says " + d);
			check(spec(info.job()).equals(d.spec), "recurring job " + name + " reads another definition: "
					+ abbreviate(spec(info.job())) + ", the model says " + abbreviate(d.spec));
			d.observeNextTick(millisOrMinusOne(info.nextFireTime()));
			String lastId = d.lastKey.isEmpty() ? null : d.lastKey.substring(d.lastKey.indexOf(':') + 1);
			Job last = d.lastKey.isEmpty() ? null : this.model.find(d.bucket, d.lastKey);
			Character state = (info.lastOccurrenceState() != null) ? info.lastOccurrenceState().code() : null;
			check(Objects.equals(info.lastOccurrenceId(), lastId)
					&& Objects.equals(state, (last != null) ? last.state : null), "recurring job " + name
							+ " reads the last occurrence " + info.lastOccurrenceId() + " " + info.lastOccurrenceState()
							+ ", the model says " + lastId + " " + last);
			check((info.lastFireTime() != null) == (d.lastTick != null), "recurring job " + name
					+ " reads the last fire time " + info.lastFireTime() + ", the model says " + d.lastTick);
			if (d.lastTick != null) {
				d.lastTick.observe(info.lastFireTime().toEpochMilli(), "the last fire time of recurring job " + name);
			}
		}
	}

	/** The recurring definitions of a bucket and its due set, as stored. */
	private void compareStoredRecurring(int b) {
		String prefix = prefix(b);
		Set<String> stored = new TreeSet<>(this.redis.hkeys(prefix + "recurring"));
		Set<String> expected = new TreeSet<>();
		this.model.definitions(b).forEach((d) -> expected.add(d.name));
		check(stored.equals(expected), "bucket " + b + " holds the recurring jobs " + stored + ", the model says "
				+ expected);
		List<String> due = new ArrayList<>();
		for (ScoredValue<String> entry : this.redis.zrangeWithScores(prefix + "recurring-due", 0, -1)) {
			due.add(entry.getValue() + "@" + (long) entry.getScore());
		}
		List<String> expectedDue = this.model.definitions(b)
			.stream()
			.filter((d) -> !d.paused && d.nextTick() >= 0)
			.sorted(Comparator.comparingLong(Definition::nextTick).thenComparing((d) -> d.name, QueueModel.KEY_ORDER))
			.map((d) -> d.name + "@" + d.nextTick())
			.toList();
		check(due.equals(expectedDue), "the recurring due set of bucket " + b + " is " + due + ", the model says "
				+ expectedDue);
	}

	// ------------------------------------------------------------------ comparisons

	private void findTouched() {
		List<String> keys = new ArrayList<>(this.touched);
		if (keys.size() > 24) {
			List<String> sample = new ArrayList<>();
			for (int i = 0; i < 24; i++) {
				sample.add(keys.get(this.checks.nextInt(keys.size())));
			}
			keys = sample;
		}
		for (String key : keys) {
			compareFind(key);
		}
		// and a job nobody touched
		String topic = TOPICS.get(this.checks.nextInt(TOPICS.size()));
		compareFind(QueueModel.key(topic, IDS.get(this.checks.nextInt(IDS.size()))));
	}

	private void compareFind(String key) {
		int colon = key.indexOf(':');
		String topic = key.substring(0, colon);
		String id = key.substring(colon + 1);
		int b = this.queue.bucketOf(topic, id);
		Optional<JobInfo> info = this.queue.find(topic, id);
		Job job = this.model.find(b, key);
		if (job == null) {
			job = this.model.completed.get(key);
		}
		check(info.isPresent() == (job != null), "find of " + key + " answered " + info.map(JobInfo::toString).orElse("none")
				+ ", the model says " + ((job != null) ? job : "none"));
		if (job != null) {
			compareInfo(job, info.get(), true, "find");
		}
	}

	private void compareInfo(Job job, JobInfo info, boolean payloads, String what) {
		String about = what + " of " + job.key;
		long ttr = job.ttr;
		check(info.state().code() == job.state && info.attempt() == job.attempt && info.maxAttempts() == job.max
				&& info.ttr().toMillis() == ttr && info.priority() == job.priority, about + " answered " + info
						+ " ttr " + info.ttr().toMillis() + " priority " + info.priority() + ", the model says " + job
						+ " ttr " + ttr + " priority " + job.priority);
		job.due.observe(info.dueAt().toEpochMilli(), "the due time of " + about);
		job.created.observe(info.createdAt().toEpochMilli(), "the creation time of " + about);
		if (job.state == 'S' && (what.equals("find") || what.equals("waiting page entry"))) {
			check(info.reservedUntil() != null, about + " has no deadline");
			job.deadline.observe(info.reservedUntil().toEpochMilli(), "the deadline of " + about);
		}
		else {
			check(info.reservedUntil() == null, about + " has a deadline " + info.reservedUntil());
		}
		if (job.state == 'X') {
			check(info.diedAt() != null, about + " has no time of death");
			job.died.observe(info.diedAt().toEpochMilli(), "the time of death of " + about);
		}
		else {
			check(info.diedAt() == null, about + " has a time of death " + info.diedAt());
		}
		String error = (job.error == null || job.error.isEmpty()) ? null : job.error;
		check(Objects.equals(info.lastError(), error), about + " has the error " + abbreviate(info.lastError())
				+ ", the model says " + abbreviate(error));
		if (payloads) {
			check(Arrays.equals(info.payload(), job.payload), about + " has another payload");
			check(info.headers().equals(job.headers), about + " has the headers " + info.headers()
					+ ", the model says " + job.headers);
		}
	}

	private void compareStats() {
		QueueStats stats = this.queue.stats();
		Map<String, List<Long>> actual = new TreeMap<>();
		stats.topics().forEach((topic, figures) -> actual.put(topic,
				List.of(figures.delayed(), figures.ready(), figures.reserved(), figures.dead())));
		Map<String, List<Long>> expected = new TreeMap<>();
		for (String topic : TOPICS) {
			long[] counts = this.model.counts(topic);
			if (counts[0] + counts[1] + counts[2] + counts[3] > 0) {
				expected.put(topic, List.of(counts[0], counts[1], counts[2], counts[3]));
			}
		}
		check(actual.equals(expected), "stats() says " + actual + ", the model says " + expected);
		for (QueueStats.BucketStats bucket : stats.buckets()) {
			int b = bucket.bucket();
			long next = this.model.nextDue(b);
			if (next != Long.MIN_VALUE) {
				check(millisOrMinusOne(bucket.nextDueAt()) == next, "stats() says bucket " + b + " is next due at "
						+ bucket.nextDueAt() + ", the model says " + next);
			}
			long delayed = this.model.earliestDelayed(b);
			if (delayed != Long.MIN_VALUE) {
				check(millisOrMinusOne(bucket.oldestDelayedDueAt()) == delayed, "stats() says the earliest DELAYED job"
						+ " of bucket " + b + " is due at " + bucket.oldestDelayedDueAt() + ", the model says " + delayed);
			}
		}
	}

	private static long millisOrMinusOne(Instant instant) {
		return (instant != null) ? instant.toEpochMilli() : -1;
	}

	private void checkRepair() {
		RepairResult repair = this.queue.repair(false);
		check(repair.isClean() && repair.jobs() == this.model.size(),
				"repair(false) found " + repair + ", the model has " + this.model.size() + " jobs and a clean queue");
	}

	private void assertInvariant() {
		List<String> violations = QueueInvariant.violations(this.server, this.namespace, this.buckets);
		check(violations.isEmpty(), "the invariant does not hold: " + abbreviate(violations.toString()));
	}

	/**
	 * Compares every record and index of the namespace with the model, as stored.
	 */
	private void deepCompare() {
		for (int b = 0; b < this.buckets; b++) {
			QueueModel.Bucket bucket = this.model.bucket[b];
			String prefix = prefix(b);
			Map<String, String> records = this.redis.hgetall(prefix + "jobs");
			for (Map.Entry<String, String> entry : records.entrySet()) {
				String key = entry.getKey();
				String record = entry.getValue();
				Job job = bucket.jobs.get(key);
				check(job != null, "bucket " + b + " holds job " + key + ", the model has none");
				int newline = record.indexOf('\n');
				Matcher header = RECORD.matcher(record.substring(0, newline));
				check(header.matches(), "the record of " + key + " does not read: " + abbreviate(record));
				long token = header.group(8).isEmpty() ? 0 : Long.parseLong(header.group(8));
				// the priority's letter, none for the default
				int priority = header.group(2).isEmpty() ? QueueModel.DEFAULT_PRIORITY : header.group(2).charAt(0) - 'a';
				int attempt = header.group(3).isEmpty() ? 0 : Integer.parseInt(header.group(3));
				boolean marked = header.group(3).startsWith("0");
				check(header.group(1).charAt(0) == job.state && priority == job.priority && attempt == job.attempt
						&& marked == job.replayed
						&& Integer.parseInt(header.group(4)) == job.max && Long.parseLong(header.group(5), 36) == job.ttr
						&& token == job.token, "the record of " + key + " is " + record.substring(0, newline)
								+ ", the model says " + job);
				long created = Long.parseLong(header.group(6), 36);
				job.created.observe(created, "the stored creation time of " + key);
				job.due.observe(created + Long.parseLong(header.group(7), 36), "the stored due time of " + key);
				check(record.substring(newline + 1).equals(stored(job)), "the stored payload of " + key + " differs");
			}
			check(records.keySet().equals(bucket.jobs.keySet()), "bucket " + b + " holds " + records.size()
					+ " jobs, the model " + bucket.jobs.size());
			compareZset(prefix + "delayed", bucket, 'D', null);
			compareZset(prefix + "reserved", bucket, 'S', null);
			Set<String> topics = new TreeSet<>(TOPICS);
			topics.addAll(bucket.ready.keySet());
			for (String topic : topics) {
				compareZset(prefix + "dead:" + topic, bucket, 'X', topic);
			}
			compareReadyLists(b);
			Map<String, String> errors = this.redis.hgetall(prefix + "errors");
			Map<String, String> expectedErrors = new HashMap<>();
			bucket.jobs.values().stream().filter((job) -> job.error != null).forEach((job) -> expectedErrors.put(job.key,
					job.error));
			check(errors.equals(expectedErrors), "the errors of bucket " + b + " are " + abbreviate(errors.toString())
					+ ", the model says " + abbreviate(expectedErrors.toString()));
			String seq = this.redis.get(prefix + "seq");
			check(((seq != null) ? Long.parseLong(seq) : 0) == bucket.seq, "the token counter of bucket " + b
					+ " is " + seq + ", the model says " + bucket.seq);
			compareStoredRecurring(b);
		}
		compareRecurring();
		compareDeaths();
	}

	/** The deaths listed of each topic that limits its DEAD jobs, entry by entry, in order. */
	private void compareDeaths() {
		for (String topic : QueueModel.FAILED_LIMITS.keySet()) {
			String key = "{" + this.namespace + "/done/" + topic + "}:deaths";
			List<String> listed = this.redis.zrange(key, 0, -1);
			List<String> expected = this.model.deaths.getOrDefault(topic, List.of())
				.stream()
				.map(QueueModel.Death::key)
				.toList();
			check(listed.equals(expected), key + " holds " + abbreviate(listed.toString()) + ", the model says "
					+ abbreviate(expected.toString()));
		}
		most("DEAD jobs trimmed", this.model.deadTrimmed);
	}

	/**
	 * Compares the ready lists of every topic in a bucket with the model, entry by entry: the
	 * list of every priority, and the sentinel that starts the first one while others have
	 * entries.
	 */
	private void compareReadyLists(int b) {
		QueueModel.Bucket bucket = this.model.bucket[b];
		Set<String> topics = new TreeSet<>(TOPICS);
		topics.addAll(bucket.ready.keySet());
		for (String topic : topics) {
			String sentinel = bucket.ready(topic).sentinel();
			for (int p = JobConstraints.MAX_PRIORITY; p >= JobConstraints.MIN_PRIORITY; p--) {
				List<String> entries = this.redis.lrange(readyKey(b, topic, p), 0, -1);
				List<String> expected = new ArrayList<>();
				if (p == QueueModel.DEFAULT_PRIORITY && sentinel != null) {
					expected.add(sentinel);
				}
				expected.addAll(bucket.list(topic, p));
				if (!entries.equals(expected)) {
					int at = 0;
					while (at < entries.size() && at < expected.size() && entries.get(at).equals(expected.get(at))) {
						at++;
					}
					throw new ModelDivergence("the ready list of " + topic + " of priority " + p + " in bucket " + b
							+ " holds " + entries.size() + " entries, the model says " + expected.size()
							+ "; from entry " + at + " on it is " + abbreviate(entries.subList(at, entries.size()))
							+ ", the model says " + abbreviate(expected.subList(at, expected.size())));
				}
			}
			if (sentinel != null) {
				count("sentinels compared", 1);
			}
		}
	}

	private void compareZset(String key, QueueModel.Bucket bucket, char state, String topic) {
		List<String> actual = new ArrayList<>();
		for (ScoredValue<String> entry : this.redis.zrangeWithScores(key, 0, -1)) {
			actual.add(entry.getValue() + "@" + (long) entry.getScore());
		}
		List<Job> jobs = bucket.jobs.values()
			.stream()
			.filter((job) -> job.state == state && (topic == null || job.topic.equals(topic)))
			.toList();
		for (Job job : jobs) {
			Time time = (state == 'D') ? job.due : (state == 'S') ? job.deadline : job.died;
			if (!time.isExact()) {
				Double score = this.redis.zscore(key, job.key);
				check(score != null, key + " does not hold " + job.key);
				time.observe(score.longValue(), "the score of " + job.key + " in " + key);
			}
		}
		List<String> expected = jobs.stream()
			.sorted(QueueModel.order((job) -> ((state == 'D') ? job.due : (state == 'S') ? job.deadline : job.died).lo()))
			.map((job) -> job.key + "@" + ((state == 'D') ? job.due : (state == 'S') ? job.deadline : job.died).lo())
			.toList();
		check(actual.equals(expected), key + " holds " + abbreviate(actual.toString()) + ", the model says "
				+ abbreviate(expected.toString()));
	}

	private String prefix(int bucket) {
		return "{" + this.namespace + ":" + bucket + "}:";
	}

	/** The ready list of a topic's jobs of a priority in a bucket. */
	private String readyKey(int bucket, String topic, int priority) {
		return prefix(bucket) + "ready:" + topic
				+ ((priority != QueueModel.DEFAULT_PRIORITY) ? ":" + priority : "");
	}

	/**
	 * The entries of a topic's ready lists in a bucket as stored: the lists of every priority,
	 * without the sentinel at the head of the first one.
	 */
	private long storedEntries(int bucket, String topic) {
		long entries = 0;
		for (int p = JobConstraints.MIN_PRIORITY; p <= JobConstraints.MAX_PRIORITY; p++) {
			entries += this.redis.llen(readyKey(bucket, topic, p));
		}
		String first = this.redis.lindex(readyKey(bucket, topic, QueueModel.DEFAULT_PRIORITY), 0);
		return (first != null && first.startsWith("^")) ? entries - 1 : entries;
	}

	private void deleteNamespace() {
		ScanArgs match = ScanArgs.Builder.matches("{" + this.namespace + "*").limit(1000);
		KeyScanCursor<String> page = this.redis.scan(match);
		while (true) {
			page.getKeys().forEach(this.redis::unlink);
			if (page.isFinished()) {
				break;
			}
			page = this.redis.scan(page, match);
		}
	}

	private static void check(boolean condition, String message) {
		if (!condition) {
			throw new ModelDivergence(message);
		}
	}

	private void count(String event, long n) {
		this.events.merge(event, n, Long::sum);
	}

	private void most(String event, long n) {
		this.events.merge(event, n, Math::max);
	}

	// ------------------------------------------------------------------ reservations held

	/**
	 * A reservation the run got, numbered in the order they came.
	 */
	record Handle(int number, ReservedJob job) {

		@Override
		public String toString() {
			return "h" + this.number + "(" + this.job.topic() + ":" + this.job.id() + " token " + this.job.token() + ")";
		}

	}

	private void addHandle(ReservedJob job) {
		this.handles.add(new Handle(++this.handleCount, job));
	}

	private boolean isCurrent(Handle handle) {
		ReservedJob job = handle.job();
		return this.model.held(this.queue.bucketOf(job.topic(), job.id()), key(job), job.token()) == 1;
	}

	/** Keeps the current reservations and the 300 latest stale ones. */
	private void pruneHandles() {
		int stale = 0;
		for (int i = this.handles.size() - 1; i >= 0; i--) {
			if (!isCurrent(this.handles.get(i)) && ++stale > 300) {
				this.handles.remove(i);
			}
		}
	}

	private List<Handle> current() {
		return this.handles.stream().filter(this::isCurrent).toList();
	}

	private static String key(ReservedJob job) {
		return QueueModel.key(job.topic(), job.id());
	}

	private static List<String> ids(List<ReservedJob> jobs) {
		return jobs.stream().map(ReservedJob::id).toList();
	}

	private static List<String> tokens(List<ReservedJob> jobs) {
		return jobs.stream().map((job) -> job.id() + "#" + job.token()).toList();
	}

	private static String abbreviate(Object value) {
		String text = String.valueOf(value);
		return (text.length() > 400) ? text.substring(0, 400) + "... (" + text.length() + " chars)" : text;
	}

	// ------------------------------------------------------------------ the generator

	private Op nextOp() {
		if (!this.planned.isEmpty()) {
			return this.planned.removeFirst();
		}
		if (this.cursor != null && this.random.nextInt(10) < 2) {
			// the job a cursor points at leaves the dead list, then the next page is read
			this.planned.add(new DeadPage(this.cursorTopic, true, 1 + this.random.nextInt(7), false));
			return new ReplayOne(this.cursorTopic, this.cursorId);
		}
		List<Handle> current = current();
		int size = this.model.size();
		boolean crowded = size > 5_000 || current.size() > 1_500;
		double[] weights = {
				/* 0 schedule */ 16,
				/* 1 small scheduleAll */ 6,
				/* 2 bulk scheduleAll */ 0.8,
				/* 3 cancel */ 5,
				/* 4 reschedule */ 5,
				/* 5 reserve */ crowded ? 20 : 14,
				/* 6 finish */ 8,
				/* 7 finishAndReserve */ crowded ? 20 : 5,
				/* 8 fail */ 7,
				/* 9 kill */ 2,
				/* 10 touch */ 4,
				/* 11 release */ 4,
				/* 12 replay many */ 2,
				/* 13 replay one */ 2,
				/* 14 promote */ 7,
				/* 15 dead page */ 4,
				/* 16 stats */ 1,
				/* 17 repair */ 0.3,
				/* 18 put a recurring job */ 1.8,
				/* 19 fire one */ 4,
				/* 20 trigger one */ 1.2,
				/* 21 pause one */ 0.35,
				/* 22 resume one */ 0.45,
				/* 23 delete one */ 0.25,
				/* 24 waiting pages */ 1.5 };
		double roll = this.random.nextDouble() * Arrays.stream(weights).sum();
		int kind = 0;
		while (roll >= weights[kind]) {
			roll -= weights[kind];
			kind++;
		}
		List<Handle> known = this.handles;
		Handle handle = null;
		if (kind >= 6 && kind <= 11) {
			if (!current.isEmpty() && (known.size() == current.size() || this.random.nextInt(100) < 85)) {
				handle = current.get(this.random.nextInt(current.size()));
			}
			else if (!known.isEmpty()) {
				handle = known.get(this.random.nextInt(known.size()));
			}
			else {
				kind = 5;
			}
		}
		String topic = topic();
		return switch (kind) {
			case 0 -> new Schedule(request(topic, singleId(), true));
			case 1 -> smallBatch();
			case 2 -> {
				ScheduleAll batch = bulkBatch(crowded);
				if (!crowded && this.random.nextInt(10) < 3) {
					// its READY jobs all die at once, and come back by the thousand
					String bulkTopic = batch.requests().get(0).topic();
					this.planned.add(new Reserve(bulkTopic, DelayQueueOperations.MAX_RESERVE, SHORT, 1));
					this.planned.add(new Promote(-1, false));
					this.planned.add(new ReplayMany(bulkTopic, 1_000 + this.random.nextInt(4_001)));
				}
				yield batch;
			}
			case 3 -> new Cancel(topic, singleIdOrOccurrence(topic));
			case 4 -> (this.random.nextInt(4) == 0)
					? new Reschedule(topic, singleIdOrOccurrence(topic), null, absoluteDueAt())
					: new Reschedule(topic, singleIdOrOccurrence(topic), delay(true), null);
			case 5 -> reserveOp(topic, crowded);
			case 6 -> new Finish(handle);
			case 7 -> finishAndReserveOp(handle, current, crowded);
			case 8 -> new Fail(handle, backOff(), error());
			case 9 -> new Fail(handle, null, error());
			case 10 -> new Touch(handle, ttr(0.4, 0.2));
			case 11 -> releaseOp(handle, current);
			case 12 -> new ReplayMany(topic, (this.random.nextInt(10) < 3) ? 500 + this.random.nextInt(4_501)
					: 1 + this.random.nextInt(5));
			case 13 -> new ReplayOne(topic, this.random.nextBoolean() ? singleId() : deadId(topic));
			case 14 -> promoteOp();
			case 15 -> new DeadPage(topic, this.random.nextInt(10) < 7, 1 + this.random.nextInt(7),
					this.random.nextBoolean());
			case 16 -> new Stats();
			case 17 -> new Repair();
			case 18 -> putRecurringOp();
			case 19 -> new FireRecurring(recurringName(), this.random.nextInt(5), this.random.nextInt(10) == 0,
					this.random.nextInt(1_000));
			case 20 -> triggerOp(recurringName());
			case 21 -> new PauseRecurring(recurringName());
			case 22 -> new ResumeRecurring(recurringName());
			case 23 -> new DeleteRecurring(recurringName());
			default -> waitingPagesOp(topic);
		};
	}

	private WaitingPages waitingPagesOp(String topic) {
		JobState state = List.of(JobState.DELAYED, JobState.READY, JobState.RESERVED).get(this.random.nextInt(3));
		// small pages while they are few, else pages of up to the most a page holds
		int limit = (this.model.size() < 200) ? 1 + this.random.nextInt(7)
				: 1 + this.random.nextInt(DelayQueueAdmin.MAX_DEAD_PAGE);
		return new WaitingPages(topic, state, limit, this.random.nextBoolean());
	}

	/** Mostly a definition that exists (in name order, so that the choice replays). */
	private String recurringName() {
		List<String> existing = List.copyOf(this.model.definitions.keySet());
		if (!existing.isEmpty() && this.random.nextInt(10) < 8) {
			return existing.get(this.random.nextInt(existing.size()));
		}
		return RECURRING_NAMES.get(this.random.nextInt(RECURRING_NAMES.size()));
	}

	/**
	 * A definition of one of the topics: every hour, every 1 or 2 s, or a fixed delay of 1 s, 2 s
	 * or 3 h; any misfire policy (a threshold of 1 ms, 500 ms, 3 s or the default 10 s, a max
	 * catch-up of 1 to 4 or the default 10) and overlap policy. Now and then the one stored again
	 * (unchanged).
	 */
	private PutRecurring putRecurringOp() {
		String name = RECURRING_NAMES.get(this.random.nextInt(RECURRING_NAMES.size()));
		Definition current = this.model.definitions.get(name);
		if (current != null && this.random.nextInt(10) < 3) {
			return new PutRecurring(current.job);
		}
		RecurringJob.Builder builder = RecurringJob.builder(name)
			.topic(topic())
			.payload(payload())
			.headers(headers());
		int kind = this.random.nextInt(10);
		if (kind < 3) {
			builder.every(RECURRING_EVERY);
		}
		else if (kind < 7) {
			builder.every(Duration.ofSeconds(1 + this.random.nextInt(2)));
		}
		else {
			builder.fixedDelay(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofHours(3))
				.get(this.random.nextInt(3)));
		}
		builder.misfirePolicy(MisfirePolicy.values()[this.random.nextInt(MisfirePolicy.values().length)]);
		int threshold = this.random.nextInt((kind < 3) ? 8 : 4);
		if (threshold < 3) {
			builder.misfireThreshold(List.of(Duration.ofMillis(1), Duration.ofMillis(500), Duration.ofSeconds(3))
				.get(threshold));
		}
		if (this.random.nextInt(5) > 0) {
			builder.maxCatchUp(1 + this.random.nextInt(4));
		}
		if (this.random.nextInt(3) == 0) {
			builder.overlapPolicy(OverlapPolicy.SKIP);
		}
		if (this.random.nextInt(3) == 0) {
			builder.ttr(this.random.nextBoolean() ? Duration.ofHours(8) : Duration.ofDays(7));
		}
		if (this.random.nextInt(3) == 0) {
			builder.maxAttempts(1 + this.random.nextInt(4));
		}
		return new PutRecurring(builder.build());
	}

	/** Now and then an occurrence of a recurring job of the topic (in id order); else any id. */
	private String singleIdOrOccurrence(String topic) {
		if (this.random.nextInt(10) == 0) {
			List<String> occurrences = new ArrayList<>();
			for (QueueModel.Bucket bucket : this.model.bucket) {
				for (Job job : bucket.jobs()) {
					if (job.topic.equals(topic) && job.id.contains("@")) {
						occurrences.add(job.id);
					}
				}
			}
			if (!occurrences.isEmpty()) {
				occurrences.sort(QueueModel.KEY_ORDER);
				return occurrences.get(this.random.nextInt(occurrences.size()));
			}
		}
		return singleId();
	}

	/** A DEAD job of a topic, in id order so that the choice replays; else any id. */
	private String deadId(String topic) {
		List<String> dead = this.model.dead(topic).stream().map((job) -> job.id).sorted().toList();
		return dead.isEmpty() ? singleId() : dead.get(this.random.nextInt(dead.size()));
	}

	private String topic() {
		return TOPICS.get(this.random.nextInt(TOPICS.size()));
	}

	private String singleId() {
		return (this.random.nextInt(100) < 85) ? IDS.get(this.random.nextInt(IDS.size()))
				: "n" + this.random.nextInt(BULK_IDS);
	}

	/**
	 * What a record should hold after its header line, by the documented format: the payload
	 * alone, or the mark NUL {@code dqh}, a {@code name=value} line per header, NUL, the
	 * payload (also for a payload without headers that itself starts with the mark).
	 */
	private static String stored(Job job) {
		String payload = new String(job.payload, StandardCharsets.UTF_8);
		if (job.headers.isEmpty() && !payload.startsWith("\0dqh")) {
			return payload;
		}
		StringBuilder stored = new StringBuilder("\0dqh");
		job.headers.forEach((name, value) -> stored.append(name).append('=').append(value).append('\n'));
		return stored.append('\0').append(payload).toString();
	}

	private ScheduleRequest request(String topic, String id, boolean shortAllowed) {
		boolean absolute = this.random.nextInt(100) < 15;
		Duration ttr = switch (this.random.nextInt(4)) {
			case 0 -> Duration.ofDays(7);
			case 1 -> Duration.ofHours(8);
			default -> null;
		};
		Integer maxAttempts = (this.random.nextInt(10) < 4) ? null : 1 + this.random.nextInt(4);
		OnDuplicate onDuplicate = this.random.nextBoolean() ? OnDuplicate.KEEP : OnDuplicate.REPLACE;
		return new ScheduleRequest(topic, id, payload(), absolute ? null : delay(shortAllowed),
				absolute ? absoluteDueAt() : null, ttr, maxAttempts, onDuplicate, headers(), priority());
	}

	/** A third of the time one of {@link #PRIORITIES}, else none (the default). */
	private Integer priority() {
		return (this.random.nextInt(3) == 0) ? PRIORITIES.get(this.random.nextInt(PRIORITIES.size())) : null;
	}

	/** Mostly none; sometimes one, or several with text beyond ASCII and '='. */
	private Map<String, String> headers() {
		return switch (this.random.nextInt(10)) {
			case 0 -> Map.of("tenant", "t" + this.random.nextInt(100));
			case 1 -> {
				Map<String, String> headers = new LinkedHashMap<>();
				headers.put("tenant", "acme \u00fc\u2713");
				headers.put("trace.id", "a=b=" + this.random.nextInt(1_000));
				headers.put("empty", "");
				yield headers;
			}
			default -> Map.of();
		};
	}

	/** Due now or in the past (READY at once), short (due by the next promotion) or hours ahead. */
	private Duration delay(boolean shortAllowed) {
		int roll = this.random.nextInt(100);
		if (roll < 35) {
			return Duration.ofMillis(-this.random.nextInt(10_000) * ((roll < 10) ? 0L : 1L));
		}
		if (roll < 65 && shortAllowed) {
			return SHORT;
		}
		return Duration.ofHours(3).plusMillis(this.random.nextInt(1_000_000));
	}

	private Instant absoluteDueAt() {
		return this.random.nextBoolean() ? Instant.ofEpochMilli(this.random.nextInt(1_000_000) * 1_000_000L)
				: FAR_DUE_AT.plusMillis(this.random.nextInt(1_000_000_000));
	}

	private byte[] payload() {
		String text = switch (this.random.nextInt(10)) {
			case 0 -> "";
			case 1 -> "line one\nline two \u00fc\u2713";
			// a payload that starts like a header section, and one that starts with NUL bytes
			case 3 -> (this.random.nextBoolean()) ? "\0dqhtenant=x\n\0not headers" : "\0\0\0\u0007binary";
			case 2 -> "{\"big\":\"" + "x".repeat(1_000 + this.random.nextInt(3_000)) + "\"}";
			default -> "{\"n\":" + this.random.nextInt(1_000_000) + "}";
		};
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private ScheduleAll smallBatch() {
		int n = 2 + this.random.nextInt(29);
		List<ScheduleRequest> requests = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			requests.add(request(topic(), singleId(), true));
		}
		return new ScheduleAll(requests);
	}

	/**
	 * A bulk schedule of 300 to 3,000 jobs of the bulk ids: more than one script call per
	 * bucket, so no short delays (jobs of one bucket in two calls might get two "now"s).
	 */
	private ScheduleAll bulkBatch(boolean crowded) {
		if (crowded) {
			return drainBatch();
		}
		int kind = this.random.nextInt(20);
		if (kind < 2) {
			return compactionBlock();
		}
		if (kind < 8) {
			return tombstoneBlock();
		}
		int n = 300 + this.random.nextInt(2_701);
		boolean again = this.lastBulkTopic != null && this.random.nextBoolean();
		int first = again ? this.lastBulkFirst : this.random.nextInt(BULK_IDS);
		String oneTopic = again ? this.lastBulkTopic : (this.random.nextInt(10) < 7) ? topic() : null;
		this.lastBulkFirst = first;
		this.lastBulkTopic = oneTopic;
		// half of the batches name some ids twice, in different script calls of one bucket: a
		// replace then leaves tombstones in the ready list, a thousand and more at a time
		int span = this.random.nextBoolean() ? BULK_IDS : n / 2 + this.random.nextInt(n / 2);
		int delays = this.random.nextInt(5);
		int duplicates = this.random.nextInt(5);
		// half of the batches of the default priority, a quarter of one other, a quarter mixed
		int priorities = this.random.nextInt(4);
		Integer batchPriority = (priorities == 2) ? PRIORITIES.get(this.random.nextInt(PRIORITIES.size())) : null;
		List<ScheduleRequest> requests = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			String topic = (oneTopic != null) ? oneTopic : topic();
			String id = "n" + ((first + i % span) % BULK_IDS);
			Duration delay = switch (delays) {
				case 0, 1 -> Duration.ofMillis(-this.random.nextInt(1_000));
				case 2, 3 -> Duration.ofHours(3).plusMillis(this.random.nextInt(1_000_000));
				default -> this.random.nextBoolean() ? Duration.ZERO : Duration.ofHours(4);
			};
			OnDuplicate onDuplicate = switch (duplicates) {
				case 0, 1 -> OnDuplicate.KEEP;
				case 2, 3 -> OnDuplicate.REPLACE;
				default -> this.random.nextBoolean() ? OnDuplicate.KEEP : OnDuplicate.REPLACE;
			};
			Integer priority = (priorities == 3) ? priority() : batchPriority;
			requests.add(new ScheduleRequest(topic, id, ("{\"b\":" + i + "}").getBytes(StandardCharsets.UTF_8), delay,
					null, null, (this.random.nextInt(4) == 0) ? 1 : null, onDuplicate, Map.of(), priority));
		}
		return new ScheduleAll(requests);
	}

	/**
	 * Ids "t0" to "t<k-1>" of one topic twice in one call (k 1,000 to 1,600), the second time
	 * replacing the first from another script call: a block of k tombstones in the ready list,
	 * which consumers reach once the entries before it are taken. The replacing jobs are far
	 * ahead (a guard re-check then compacts the list) or due now; each round has a priority
	 * (mostly the default), so due-now replacements of another priority leave the block in the
	 * first round's list as entries of READY jobs of another priority.
	 */
	private ScheduleAll tombstoneBlock() {
		int k = 1_000 + this.random.nextInt(601);
		String topic = topic();
		boolean far = this.random.nextBoolean();
		Integer[] priority = { null, null };
		for (int round = 0; round < 2; round++) {
			if (this.random.nextInt(3) == 0) {
				priority[round] = PRIORITIES.get(this.random.nextInt(PRIORITIES.size()));
			}
		}
		List<ScheduleRequest> requests = new ArrayList<>(2 * k);
		for (int round = 0; round < 2; round++) {
			for (int i = 0; i < k; i++) {
				Duration delay = (round == 1 && far) ? Duration.ofHours(5) : Duration.ofMillis(-i);
				requests.add(new ScheduleRequest(topic, "t" + i, ("{\"t\":" + i + "}").getBytes(StandardCharsets.UTF_8),
						delay, null, null, null, OnDuplicate.REPLACE, Map.of(), priority[round]));
			}
		}
		return new ScheduleAll(requests);
	}

	/**
	 * Ids {@code t<i>} of one topic in one bucket (k 1,100 to 1,600 of them), due now, 10 to 12
	 * times in one call, each round replacing the one before from another script call and each
	 * with a priority (mostly the default): the bucket's ready lists of the topic get more
	 * entries than a guard re-check's compaction window, all but the last round's tombstones.
	 * Then a job of the topic in that bucket due by the next promotion, and a guard re-check of
	 * the bucket: it compacts the lists, the last one it reaches in part only, and then pushes
	 * the job that came due.
	 */
	private ScheduleAll compactionBlock() {
		int k = 1_100 + this.random.nextInt(501);
		int rounds = 10 + this.random.nextInt(3);
		String topic = topic();
		int b = this.random.nextInt(this.buckets);
		List<String> ids = new ArrayList<>(k + 1);
		for (int i = 0; ids.size() <= k; i++) {
			if (this.queue.bucketOf(topic, "t" + i) == b) {
				ids.add("t" + i);
			}
		}
		List<ScheduleRequest> requests = new ArrayList<>(rounds * k);
		for (int round = 0; round < rounds; round++) {
			Integer priority = (this.random.nextInt(3) == 0) ? PRIORITIES.get(this.random.nextInt(PRIORITIES.size()))
					: null;
			for (int i = 0; i < k; i++) {
				requests.add(new ScheduleRequest(topic, ids.get(i), ("{\"t\":" + i + "}").getBytes(StandardCharsets.UTF_8),
						Duration.ofMillis(-i), null, null, null, OnDuplicate.REPLACE, Map.of(), priority));
			}
		}
		this.planned.add(new Schedule(new ScheduleRequest(topic, ids.get(k), payload(), SHORT, null, null, null,
				OnDuplicate.REPLACE, Map.of(), priority())));
		this.planned.add(new Promote(b, true));
		return new ScheduleAll(requests);
	}

	/**
	 * Every bulk id of a topic made due now, replacing what is there: far-ahead bulk jobs do
	 * not pile up, the big reserves of a crowded queue take them.
	 */
	private ScheduleAll drainBatch() {
		String topic = topic();
		Integer priority = (this.random.nextInt(3) == 0) ? PRIORITIES.get(this.random.nextInt(PRIORITIES.size())) : null;
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < BULK_IDS + 1_600; i++) {
			String id = (i < BULK_IDS) ? "n" + i : "t" + (i - BULK_IDS);
			requests.add(new ScheduleRequest(topic, id, "{}".getBytes(StandardCharsets.UTF_8), Duration.ZERO, null, null,
					null, OnDuplicate.REPLACE, Map.of(), priority));
		}
		return new ScheduleAll(requests);
	}

	private Promote promoteOp() {
		int bucket = (this.random.nextInt(10) < 4) ? -1 : this.random.nextInt(this.buckets);
		if (this.random.nextInt(100) < 35) {
			return new Promote(bucket, true);
		}
		List<QueueModel.Offer> offers = new ArrayList<>();
		if (this.random.nextBoolean()) {
			// waiting consumers of one or two topics, with room for a few jobs or many
			List<String> topics = new ArrayList<>(TOPICS);
			List<String> chosen = new ArrayList<>();
			for (int n = 1 + this.random.nextInt(2); n > 0; n--) {
				chosen.add(topics.remove(this.random.nextInt(topics.size())));
			}
			for (String topic : chosen) {
				Duration ttr = ttr(0.5, 0.2);
				int maxAttempts = (this.random.nextInt(10) < 7) ? 0 : 1 + this.random.nextInt(4);
				offers.add(new QueueModel.Offer(topic, (this.random.nextInt(10) < 7) ? 1 + this.random.nextInt(4)
						: 1 + this.random.nextInt(500), (ttr != null) ? ttr.toMillis() : 0, maxAttempts));
			}
		}
		return new Promote(bucket, false, offers);
	}

	private Reserve reserveOp(String topic, boolean crowded) {
		int roll = this.random.nextInt(100);
		if (!crowded && roll < 3) {
			// every READY job of the topic on its last attempt with a short TTR: they all die at
			// the next promotions, and a replay brings them back by the thousand
			this.planned.add(new Promote(-1, false));
			return new Reserve(topic, DelayQueueOperations.MAX_RESERVE, SHORT, 1);
		}
		int max;
		if (crowded || roll < 8) {
			max = DelayQueueOperations.MAX_RESERVE;
		}
		else if (roll < 20) {
			max = 100 + this.random.nextInt(2_901);
		}
		else if (roll < 55) {
			max = 6 + this.random.nextInt(55);
		}
		else {
			max = 1 + this.random.nextInt(5);
		}
		Integer maxAttempts = (this.random.nextInt(10) < 7) ? null : 1 + this.random.nextInt(4);
		return new Reserve(topic, max, ttr(0.5, 0.25), maxAttempts);
	}

	/** null (the job's own), short or long, with the given odds of the first two. */
	private Duration ttr(double own, double shortOdds) {
		double roll = this.random.nextDouble();
		if (roll < own) {
			return null;
		}
		return (roll < own + shortOdds) ? SHORT : LONG_TTR.plusMillis(this.random.nextInt(1_000_000));
	}

	private FinishAndReserve finishAndReserveOp(Handle handle, List<Handle> current, boolean crowded) {
		String topic = handle.job().topic();
		List<Handle> ofTopic = current.stream().filter((h) -> h.job().topic().equals(topic)).toList();
		List<Handle> chosen = new ArrayList<>();
		if (!ofTopic.isEmpty() && (crowded || this.random.nextInt(10) < 3)) {
			chosen.addAll(ofTopic);
		}
		else {
			chosen.add(handle);
			for (int i = this.random.nextInt(20); i > 0 && !ofTopic.isEmpty(); i--) {
				chosen.add(ofTopic.get(this.random.nextInt(ofTopic.size())));
			}
		}
		if (this.random.nextInt(5) == 0) {
			List<Handle> staleOfTopic = this.handles.stream()
				.filter((h) -> h.job().topic().equals(topic) && !isCurrent(h))
				.toList();
			if (!staleOfTopic.isEmpty()) {
				chosen.add(this.random.nextInt(chosen.size() + 1), staleOfTopic.get(this.random.nextInt(staleOfTopic.size())));
			}
		}
		int roll = this.random.nextInt(10);
		int max = (roll < 3) ? 0 : (roll < 8) ? 1 + this.random.nextInt(10) : 100 + this.random.nextInt(901);
		Integer maxAttempts = (this.random.nextInt(10) < 7) ? null : 1 + this.random.nextInt(3);
		return new FinishAndReserve(chosen, max, ttr(0.5, 0.25), maxAttempts);
	}

	/**
	 * A trigger; half the time after a firing and a reserve of its topic, then a cancel of the
	 * trigger's occurrence and a firing again: triggers meet occurrences that run, under each
	 * overlap policy and fixed delays.
	 */
	private Op triggerOp(String name) {
		Definition d = this.model.definitions.get(name);
		if (d == null || this.random.nextBoolean()) {
			return new TriggerRecurring(name, false);
		}
		this.planned.add(new Reserve(d.job.getTopic(), 1 + this.random.nextInt(3), LONG_TTR, null));
		this.planned.add(new TriggerRecurring(name, true));
		return new FireRecurring(name, this.random.nextInt(5), false, this.random.nextInt(1_000));
	}

	/**
	 * A give-back: one reservation, or the current ones of its topic in the order they were
	 * reserved (as a consumer gives back what it did not start), now and then with a stale or
	 * a repeated one among them.
	 */
	private Release releaseOp(Handle handle, List<Handle> current) {
		if (this.random.nextBoolean()) {
			return new Release(List.of(handle));
		}
		String topic = handle.job().topic();
		List<Handle> chosen = new ArrayList<>(current.stream()
			.filter((h) -> h.job().topic().equals(topic))
			.sorted(Comparator.comparingInt(Handle::number))
			.toList());
		if (chosen.isEmpty()) {
			chosen.add(handle);
		}
		if (this.random.nextInt(5) == 0) {
			Handle extra = this.random.nextBoolean() ? handle : this.handles.get(this.random.nextInt(this.handles.size()));
			chosen.add(this.random.nextInt(chosen.size() + 1), extra);
		}
		return new Release(chosen);
	}

	private Duration backOff() {
		int roll = this.random.nextInt(100);
		return (roll < 35) ? Duration.ZERO : (roll < 70) ? SHORT : Duration.ofHours(3).plusMillis(this.random.nextInt(1_000_000));
	}

	private String error() {
		int roll = this.random.nextInt(100);
		if (roll < 15) {
			return null;
		}
		if (roll < 75) {
			return "boom " + this.random.nextInt(1_000);
		}
		if (roll < 90) {
			return "\u00e9chec \u2713\nat line " + this.random.nextInt(100);
		}
		return "y".repeat(JobConstraints.MAX_ERROR_LENGTH + this.random.nextInt(2_000));
	}

	// ------------------------------------------------------------------ operations as data

	/**
	 * One step of a run.
	 */
	sealed interface Op {

		default String kind() {
			return getClass().getSimpleName();
		}

	}

	record Schedule(ScheduleRequest request) implements Op {

		@Override
		public String toString() {
			return "schedule " + describe(this.request);
		}

	}

	record ScheduleAll(List<ScheduleRequest> requests) implements Op {

		@Override
		public String kind() {
			return (this.requests.size() > 200) ? "ScheduleAll (bulk)" : "ScheduleAll";
		}

		@Override
		public String toString() {
			StringBuilder text = new StringBuilder("scheduleAll of " + this.requests.size() + ": ");
			for (int i = 0; i < Math.min(12, this.requests.size()); i++) {
				text.append((i > 0) ? ", " : "").append(describe(this.requests.get(i)));
			}
			return text.append((this.requests.size() > 12) ? ", ..." : "").toString();
		}

	}

	record Cancel(String topic, String id) implements Op {

		@Override
		public String toString() {
			return "cancel " + this.topic + ":" + this.id;
		}

	}

	record Reschedule(String topic, String id, Duration delay, Instant dueAt) implements Op {

		@Override
		public String toString() {
			return "reschedule " + this.topic + ":" + this.id + " " + ((this.delay != null) ? "in " + this.delay.toMillis()
					+ " ms" : "at " + this.dueAt);
		}

	}

	record Reserve(String topic, int max, Duration ttr, Integer maxAttempts) implements Op {

		@Override
		public String toString() {
			return "reserve " + this.max + " of " + this.topic + " ttr " + millis(this.ttr) + " maxAttempts "
					+ this.maxAttempts;
		}

	}

	record Finish(Handle handle) implements Op {

		@Override
		public String toString() {
			return "finish " + this.handle;
		}

	}

	record FinishAndReserve(List<Handle> handles, int max, Duration ttr, Integer maxAttempts) implements Op {

		@Override
		public String toString() {
			return "finishAndReserve of " + this.handles.size() + " " + abbreviate(this.handles) + " next " + this.max
					+ " ttr " + millis(this.ttr) + " maxAttempts " + this.maxAttempts;
		}

	}

	/** A fail, or with no back-off a kill. */
	record Fail(Handle handle, Duration backOff, String error) implements Op {

		@Override
		public String kind() {
			return (this.backOff != null) ? "Fail" : "Kill";
		}

		@Override
		public String toString() {
			return ((this.backOff != null) ? "fail " + this.handle + " back-off " + this.backOff.toMillis() + " ms"
					: "kill " + this.handle) + " error " + ((this.error != null) ? this.error.length() + " chars" : "null");
		}

	}

	record Touch(Handle handle, Duration ttr) implements Op {

		@Override
		public String toString() {
			return "touch " + this.handle + " ttr " + millis(this.ttr);
		}

	}

	record Release(List<Handle> handles) implements Op {

		@Override
		public String toString() {
			return "release " + this.handles.size() + " " + abbreviate(this.handles);
		}

	}

	record ReplayMany(String topic, int max) implements Op {

		@Override
		public String toString() {
			return "replayDead " + this.max + " of " + this.topic;
		}

	}

	record ReplayOne(String topic, String id) implements Op {

		@Override
		public String toString() {
			return "replayDead " + this.topic + ":" + this.id;
		}

	}

	/**
	 * A promotion (with TTR expiry) of one bucket, or of all for bucket -1, with the offers of
	 * waiting consumers (none: as a timer without waiting consumers steps).
	 */
	record Promote(int bucket, boolean guard, List<QueueModel.Offer> offers) implements Op {

		Promote(int bucket, boolean guard) {
			this(bucket, guard, List.of());
		}

		@Override
		public String toString() {
			return "promote " + ((this.bucket < 0) ? "every bucket" : "bucket " + this.bucket)
					+ (this.guard ? " (guard)" : "") + (this.offers.isEmpty() ? "" : " offering " + this.offers);
		}

	}

	record DeadPage(String topic, boolean resume, int limit, boolean payloads) implements Op {

		@Override
		public String toString() {
			return "deadJobs " + this.topic + " limit " + this.limit + (this.resume ? " (resume a cursor if any)" : "");
		}

	}

	record WaitingPages(String topic, JobState state, int limit, boolean payloads) implements Op {

		@Override
		public String toString() {
			return "waitingJobs " + this.topic + " " + this.state + " limit " + this.limit;
		}

	}

	record Stats() implements Op {

		@Override
		public String toString() {
			return "stats";
		}

	}

	record Repair() implements Op {

		@Override
		public String toString() {
			return "repair(false)";
		}

	}

	record PutRecurring(RecurringJob job) implements Op {

		@Override
		public String toString() {
			return "put recurring " + this.job.getName() + " on " + this.job.getTopic() + " ttr "
					+ millis(this.job.getTtr()) + " max " + this.job.getMaxAttempts() + ", " + this.job.getHeaders().size()
					+ " header(s), " + this.job.getPayload().length + " bytes";
		}

	}

	/**
	 * A fire of a recurring job's bucket, its next tick moved first to {@code back} seconds (a
	 * short fixed rate: periods) and {@code jitter} thousandths of one ago (an hourly one: whole
	 * seconds), or, {@code again}, to the latest tick fired.
	 */
	record FireRecurring(String name, int back, boolean again, int jitter) implements Op {

		@Override
		public String toString() {
			return "fire recurring " + this.name
					+ (this.again ? " (its latest tick again)" : " (" + this.back + "." + this.jitter + " back)");
		}

	}

	/**
	 * A trigger, then with {@code cancelThenFire} a cancel of the occurrence it made and a
	 * firing of the definition.
	 */
	record TriggerRecurring(String name, boolean cancelThenFire) implements Op {

		@Override
		public String toString() {
			return "trigger recurring " + this.name + (this.cancelThenFire ? ", then cancel it and fire" : "");
		}

	}

	record PauseRecurring(String name) implements Op {

		@Override
		public String toString() {
			return "pause recurring " + this.name;
		}

	}

	record ResumeRecurring(String name) implements Op {

		@Override
		public String toString() {
			return "resume recurring " + this.name;
		}

	}

	record DeleteRecurring(String name) implements Op {

		@Override
		public String toString() {
			return "delete recurring " + this.name;
		}

	}

	private static String describe(ScheduleRequest request) {
		return request.topic() + ":" + request.id() + " " + ((request.delay() != null)
				? "in " + request.delay().toMillis() + " ms" : "at " + request.dueAt()) + " " + request.onDuplicate()
				+ " ttr " + millis(request.ttr()) + " max " + request.maxAttempts()
				+ ((request.priority() != null) ? " priority " + request.priority() : "");
	}

	private static String millis(Duration duration) {
		return (duration != null) ? duration.toMillis() + "ms" : "own";
	}

}
