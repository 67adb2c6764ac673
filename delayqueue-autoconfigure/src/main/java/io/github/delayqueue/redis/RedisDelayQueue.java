package io.github.delayqueue.redis;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.LongSupplier;

import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DeadJobPage;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.FinishResult;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueueStats.BucketStats;
import io.github.delayqueue.core.QueueStats.TopicStats;
import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.ReplayResult;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.ScheduleResult;
import io.github.delayqueue.scheduler.BucketTimer;
import io.github.delayqueue.scheduler.ReadySignals;
import io.github.delayqueue.scheduler.RedisClock;
import io.github.delayqueue.scheduler.TimerBackend;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.util.Assert;
import org.springframework.util.unit.DataSize;

/**
 * The Redis implementation of {@link DelayQueueOperations}: job pool, delay buckets, ready
 * lists and reservations in Redis, every transition one Lua script timed by Redis's
 * {@code TIME}, plus this instance's share of the bucket timers.
 *
 * <p>
 * As a {@link SmartLifecycle} it subscribes to the namespace's event channel and starts the
 * bucket timer on {@link #start()}; {@link #stop()} gives this instance's buckets to the
 * other instances at once. Producing and consuming work without starting it, but then only
 * other instances' timers move jobs. Build one with {@link #builder(RedisConnectionFactory)}.
 * Thread-safe.
 */
public class RedisDelayQueue implements DelayQueueOperations, SmartLifecycle {

	/**
	 * The lifecycle phase: after most beans start, before the listener containers (which
	 * start later and stop earlier), and before the Redis connection factory stops.
	 */
	public static final int PHASE = Integer.MAX_VALUE - 2048;

	/** The most jobs one schedule script call creates (a bulk schedule is split). */
	static final int SCHEDULE_BATCH = 200;

	/** The most dead jobs one replay script call reads (a replay of more is split). */
	static final int REPLAY_BATCH = 1_000;

	/** The most jobs one finish script call finishes (a bigger batch is split). */
	static final int FINISH_BATCH = 1_000;

	private static final Log logger = LogFactory.getLog(RedisDelayQueue.class);

	private static final LuaScript SCHEDULE = LuaScript.job("schedule");

	private static final LuaScript PROMOTE = LuaScript.job("promote");

	private static final LuaScript RESERVE = LuaScript.job("reserve");

	private static final LuaScript FINISH = LuaScript.job("finish");

	private static final LuaScript FAIL = LuaScript.job("fail");

	private static final LuaScript TOUCH = LuaScript.job("touch");

	private static final LuaScript RELEASE = LuaScript.job("release");

	private static final LuaScript CANCEL = LuaScript.job("cancel");

	private static final LuaScript RESCHEDULE = LuaScript.job("reschedule");

	private static final LuaScript FIND = LuaScript.job("find");

	private static final LuaScript REPLAY = LuaScript.job("replay");

	private static final LuaScript STATS = LuaScript.job("stats");

	private static final LuaScript DEAD = LuaScript.job("dead");

	private static final LuaScript REPAIR = LuaScript.job("repair");

	private static final LuaScript COORDINATE = LuaScript.standalone("coordinate", 2);

	private final RedisConnectionFactory connectionFactory;

	private final KeySpace keys;

	private final ScriptRunner runner;

	private final StartupChecks startupChecks;

	private final boolean failFast;

	private final byte[] channel;

	private final long maxPayloadSize;

	private final Duration defaultTtr;

	private final int defaultMaxAttempts;

	private final boolean timerEnabled;

	private final int batchSize;

	private final Duration leaseTtl;

	private final String instanceId;

	private final RedisClock redisClock;

	private final ReadySignals signals;

	private final BucketTimer timer;

	private final EventSubscriber subscriber;

	private final DelayQueueObserver observer;

	private final Object lifecycleMonitor = new Object();

	private volatile boolean running;

	private RedisDelayQueue(Builder builder) {
		this.connectionFactory = builder.connectionFactory;
		this.keys = new KeySpace(builder.namespace, builder.buckets);
		Assert.isTrue(builder.waitReplicas >= 0, () -> "waitReplicas must not be negative, was " + builder.waitReplicas);
		JobConstraints.positive("waitTimeout", builder.waitTimeout, Duration.ofMinutes(1));
		this.startupChecks = new StartupChecks(new ScriptRunner(builder.connectionFactory), this.keys);
		this.failFast = builder.failFast;
		this.runner = new ScriptRunner(builder.connectionFactory,
				new ReplicaWait(builder.waitReplicas, builder.waitTimeout), this.startupChecks::beforeCall);
		this.channel = KeySpace.bytes(this.keys.channel());
		this.maxPayloadSize = builder.maxPayloadSize.toBytes();
		this.defaultTtr = JobConstraints.ttr(builder.defaultTtr);
		this.defaultMaxAttempts = JobConstraints.maxAttempts(builder.defaultMaxAttempts);
		this.timerEnabled = builder.timerEnabled;
		this.batchSize = JobConstraints.max("batchSize", builder.batchSize, 10_000);
		this.leaseTtl = JobConstraints.positive("leaseTtl", builder.leaseTtl, Duration.ofMinutes(10));
		JobConstraints.positive("guardInterval", builder.guardInterval, Duration.ofHours(1));
		this.instanceId = (builder.instanceId != null) ? builder.instanceId : defaultInstanceId();
		this.redisClock = new RedisClock(builder.nanoTime);
		this.observer = DelayQueueObserver.composite(builder.observers);
		this.signals = new ReadySignals(this.keys.buckets(), this::readyLists);
		Duration coordination = coordinationInterval(this.leaseTtl);
		this.timer = new BucketTimer(new Backend(), this.keys.buckets(), this.batchSize, coordination,
				builder.guardInterval, this.redisClock, this.signals::markReady);
		this.subscriber = new EventSubscriber(builder.connectionFactory, this.keys.channel(), this.signals, this.timer);
	}

	/**
	 * Starts building a queue on a connection factory.
	 * @param connectionFactory the Redis connection factory (Lettuce or Jedis; standalone,
	 * Sentinel or Cluster)
	 * @return the builder
	 */
	public static Builder builder(RedisConnectionFactory connectionFactory) {
		return new Builder(connectionFactory);
	}

	/**
	 * The heartbeat interval for a lease TTL: two fifths of it, between 100 ms and 2 s, so that
	 * a heartbeat may be missed once without losing the lease, and a dead instance's buckets
	 * are taken over within TTL + 2 s (7 s with the default 5 s).
	 * @param leaseTtl the lease TTL
	 * @return the interval
	 */
	static Duration coordinationInterval(Duration leaseTtl) {
		Duration interval = leaseTtl.multipliedBy(2).dividedBy(5);
		if (interval.compareTo(Duration.ofMillis(100)) < 0) {
			return Duration.ofMillis(100);
		}
		return (interval.compareTo(Duration.ofSeconds(2)) > 0) ? Duration.ofSeconds(2) : interval;
	}

	private static String defaultInstanceId() {
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (Exception ex) {
			host = "unknown";
		}
		return host + ":" + ManagementFactory.getRuntimeMXBean().getPid() + ":"
				+ UUID.randomUUID().toString().substring(0, 8);
	}

	// ---------------------------------------------------------------- lifecycle

	/**
	 * Starts the queue: checks Redis (version, settings, the namespace's bucket count),
	 * subscribes to the namespace's events and starts this instance's share of the timers.
	 * @throws io.github.delayqueue.core.DelayQueueConnectionException when Redis is
	 * unreachable and the queue fails fast (see {@link Builder#failFast(boolean)})
	 * @throws io.github.delayqueue.core.UnsupportedRedisVersionException when a server runs
	 * Redis older than 6.2
	 * @throws io.github.delayqueue.core.BucketCountMismatchException when the namespace was
	 * created with another bucket count
	 */
	@Override
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.running) {
				return;
			}
			this.startupChecks.atStart(this.failFast);
			this.subscriber.start(!this.failFast);
			if (this.timerEnabled) {
				this.timer.start();
			}
			this.running = true;
			logger.info("delayqueue started: namespace '" + this.keys.namespace() + "', " + this.keys.buckets()
					+ " buckets, instance '" + this.instanceId + "', timer " + (this.timerEnabled ? "on" : "off"));
		}
	}

	@Override
	public void stop() {
		synchronized (this.lifecycleMonitor) {
			if (!this.running) {
				return;
			}
			this.running = false;
			if (this.timerEnabled) {
				this.timer.stop();
			}
			this.subscriber.stop();
			this.signals.wakeAll();
		}
	}

	/**
	 * Stops the timer and the subscription without giving up the buckets, as a crash
	 * would: other instances take them over once the heartbeat expires. For tests of
	 * fail-over.
	 */
	void halt() {
		synchronized (this.lifecycleMonitor) {
			this.running = false;
			this.timer.halt();
			this.subscriber.stop();
		}
	}

	/**
	 * Runs the timer's step on one bucket now, as this instance's timer does: the bucket's due
	 * jobs and expired reservations are moved, and this instance's consumers are told of the
	 * topics that got work. For tests that drive the timer themselves, on a queue built with
	 * {@code timerEnabled(false)}.
	 * @param bucket the bucket
	 * @param guard {@code true} for the guard re-check (re-announces and compacts ready lists)
	 * @return what the step did
	 */
	TimerBackend.Promotion promoteNow(int bucket, boolean guard) {
		TimerBackend.Promotion promotion = new Backend().promote(bucket, guard);
		promotion.topics().forEach((topic) -> this.signals.markReady(topic, bucket));
		return promotion;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	// ---------------------------------------------------------------- producer side

	@Override
	public ScheduleResult schedule(ScheduleRequest request) {
		Assert.notNull(request, "request must not be null");
		JobConstraints.payload(request.payload(), this.maxPayloadSize);
		int bucket = bucketOf(request.topic(), request.id());
		List<Object> reply = Replies.list(this.runner.runReplicated(SCHEDULE, call(bucket, scheduleValues(List.of(request)))));
		return scheduled(request, bucket, reply, 0);
	}

	@Override
	public List<ScheduleResult> scheduleAll(List<ScheduleRequest> requests) {
		Assert.notNull(requests, "requests must not be null");
		// one script call per bucket and up to SCHEDULE_BATCH jobs, all calls in one pipeline
		Map<Integer, List<Integer>> byBucket = new LinkedHashMap<>();
		for (int i = 0; i < requests.size(); i++) {
			ScheduleRequest request = requests.get(i);
			if (request == null) {
				throw new IllegalArgumentException("requests[" + i + "] must not be null");
			}
			JobConstraints.payload(request.payload(), this.maxPayloadSize);
			byBucket.computeIfAbsent(bucketOf(request.topic(), request.id()), (bucket) -> new ArrayList<>()).add(i);
		}
		List<byte[][]> calls = new ArrayList<>();
		List<int[]> chunks = new ArrayList<>();
		byBucket.forEach((bucket, indexes) -> {
			for (int from = 0; from < indexes.size(); from += SCHEDULE_BATCH) {
				List<Integer> chunk = indexes.subList(from, Math.min(indexes.size(), from + SCHEDULE_BATCH));
				calls.add(call(bucket, scheduleValues(chunk.stream().map(requests::get).toList())));
				int[] entry = new int[chunk.size() + 1];
				entry[0] = bucket;
				for (int k = 0; k < chunk.size(); k++) {
					entry[k + 1] = chunk.get(k);
				}
				chunks.add(entry);
			}
		});
		List<Object> replies = this.runner.runAllReplicated(SCHEDULE, calls);
		ScheduleResult[] results = new ScheduleResult[requests.size()];
		for (int c = 0; c < chunks.size(); c++) {
			int[] chunk = chunks.get(c);
			List<Object> reply = Replies.list(replies.get(c));
			for (int k = 1; k < chunk.length; k++) {
				results[chunk[k]] = scheduled(requests.get(chunk[k]), chunk[0], reply, k - 1);
			}
		}
		return Arrays.asList(results);
	}

	/**
	 * The eight script arguments of each job, in order.
	 */
	private Object[] scheduleValues(List<ScheduleRequest> requests) {
		Object[] values = new Object[8 * requests.size()];
		for (int i = 0; i < requests.size(); i++) {
			ScheduleRequest request = requests.get(i);
			Duration ttr = (request.ttr() != null) ? request.ttr() : this.defaultTtr;
			int maxAttempts = (request.maxAttempts() != null) ? request.maxAttempts() : this.defaultMaxAttempts;
			boolean relative = request.delay() != null;
			long time = relative ? request.delay().toMillis() : request.dueAt().toEpochMilli();
			int at = 8 * i;
			values[at] = KeySpace.jobKey(request.topic(), request.id());
			values[at + 1] = request.topic();
			values[at + 2] = request.payload();
			values[at + 3] = relative ? "d" : "a";
			values[at + 4] = time;
			values[at + 5] = ttr.toMillis();
			values[at + 6] = maxAttempts;
			values[at + 7] = (request.onDuplicate() == OnDuplicate.REPLACE) ? "1" : "0";
		}
		return values;
	}

	/**
	 * The result of the job at {@code index} (from 0) of a schedule script call, whose reply is
	 * Redis's now, the number (from 1) of the job that became the bucket's head or 0, then
	 * three figures per job.
	 */
	private ScheduleResult scheduled(ScheduleRequest request, int bucket, List<Object> reply, int index) {
		int at = 2 + 3 * index;
		boolean created = Replies.asLong(reply.get(at)) == 1;
		JobState state = state(reply.get(at + 1));
		long due = Replies.asLong(reply.get(at + 2));
		if (created) {
			afterWrite(request.topic(), bucket, state, due, Replies.asLong(reply.get(1)) == index + 1);
			this.observer.scheduled(request.topic());
		}
		return new ScheduleResult(created, state, Instant.ofEpochMilli(due));
	}

	/**
	 * Tells this JVM's timer and consumers at once what a script announced on the channel.
	 */
	private void afterWrite(String topic, int bucket, JobState state, long due, boolean head) {
		if (state == JobState.READY) {
			this.signals.markReady(topic, bucket);
		}
		else if (head) {
			this.timer.onHead(bucket, due);
		}
	}

	@Override
	public boolean cancel(String topic, String id) {
		int bucket = bucketOf(topic, id);
		List<Object> reply = Replies.list(
				this.runner.run(CANCEL, call(bucket, KeySpace.jobKey(topic, id))));
		if (reply.isEmpty()) {
			return false;
		}
		this.observer.cancelled(topic);
		return true;
	}

	@Override
	public RescheduleResult reschedule(String topic, String id, Duration delay) {
		JobConstraints.delay(delay);
		return reschedule(topic, id, "d", delay.toMillis());
	}

	@Override
	public RescheduleResult rescheduleAt(String topic, String id, Instant dueAt) {
		JobConstraints.dueAt(dueAt);
		return reschedule(topic, id, "a", dueAt.toEpochMilli());
	}

	private RescheduleResult reschedule(String topic, String id, String mode, long time) {
		int bucket = bucketOf(topic, id);
		List<Object> reply = Replies.list(this.runner.run(RESCHEDULE, call(bucket, KeySpace.jobKey(topic, id), mode, time)));
		long code = Replies.asLong(reply.get(0));
		if (code == 0) {
			return RescheduleResult.NOT_FOUND;
		}
		if (code < 0) {
			return RescheduleResult.NOT_WAITING;
		}
		afterWrite(topic, bucket, state(reply.get(1)), Replies.asLong(reply.get(2)), Replies.asLong(reply.get(3)) == 1);
		return RescheduleResult.RESCHEDULED;
	}

	@Override
	public Optional<JobInfo> find(String topic, String id) {
		int bucket = bucketOf(topic, id);
		List<Object> v = Replies.list(
				this.runner.run(FIND, call(bucket, KeySpace.jobKey(topic, id))));
		if (v.isEmpty()) {
			return Optional.empty();
		}
		String error = Replies.asString(v.get(8));
		return Optional.of(new JobInfo(topic, id, state(v.get(0)), (int) Replies.asLong(v.get(1)),
				(int) Replies.asLong(v.get(2)), Duration.ofMillis(Replies.asLong(v.get(3))), instant(v.get(4)),
				instant(v.get(5)), instantOrNull(v.get(6)), instantOrNull(v.get(7)),
				(error == null || error.isEmpty()) ? null : error, Replies.asBytes(v.get(9))));
	}

	@Override
	public ReplayResult replayDeadJobs(String topic, int max) {
		JobConstraints.topic(topic);
		JobConstraints.max("max", max, MAX_REPLAY);
		int total = 0;
		List<String> ids = new ArrayList<>();
		for (int bucket = 0; bucket < this.keys.buckets() && total < max; bucket++) {
			// bounded script calls: each one reads and removes at most REPLAY_BATCH dead entries
			long left = 1;
			while (total < max && left > 0) {
				Replayed replayed = replay(topic, bucket, Math.min(REPLAY_BATCH, max - total), "",
						ReplayResult.MAX_IDS - ids.size());
				total += (int) replayed.count();
				left = replayed.left();
				ids.addAll(replayed.ids());
			}
		}
		return new ReplayResult(total, ids);
	}

	@Override
	public boolean replayDead(String topic, String id) {
		int bucket = bucketOf(topic, id);
		return replay(topic, bucket, 1, KeySpace.jobKey(topic, id), 0).count() == 1;
	}

	/**
	 * Replays dead jobs of one bucket.
	 * @param named how many of the replayed jobs' ids to return
	 */
	private Replayed replay(String topic, int bucket, int max, String jobKey, int named) {
		Replayed replayed = Replayed.of(topic,
				Replies.list(this.runner.run(REPLAY, call(bucket, topic, max, jobKey, named))));
		if (replayed.count() > 0) {
			this.signals.markReady(topic, bucket);
		}
		return replayed;
	}

	/**
	 * The reply of {@code replay.lua}.
	 *
	 * @param count the jobs replayed
	 * @param left the dead-list entries left in the bucket
	 * @param ids the ids of the first replayed jobs, as many as were asked for
	 */
	private record Replayed(long count, long left, List<String> ids) {

		static Replayed of(String topic, List<Object> reply) {
			List<String> ids = new ArrayList<>(reply.size() - 2);
			for (int i = 2; i < reply.size(); i++) {
				ids.add(Replies.asString(reply.get(i)).substring(topic.length() + 1));
			}
			return new Replayed(Replies.asLong(reply.get(0)), Replies.asLong(reply.get(1)), ids);
		}

	}

	// ---------------------------------------------------------------- consumer side

	@Override
	public List<ReservedJob> reserve(String topic, int max, Duration ttr, Integer maxAttempts) {
		JobConstraints.topic(topic);
		JobConstraints.max("max", max, MAX_RESERVE);
		long ttrMillis = ttrMillis(ttr);
		int attemptsLimit = attemptsLimit(maxAttempts);
		ReadySignals.TopicSignal signal = this.signals.topic(topic);
		List<ReservedJob> jobs = new ArrayList<>(Math.min(max, 64));
		for (long[] candidate : signal.candidates()) {
			int bucket = (int) candidate[0];
			List<Object> reply;
			try {
				reply = Replies.list(this.runner.run(RESERVE, call(bucket, topic, max - jobs.size(), ttrMillis, attemptsLimit)));
			}
			catch (RuntimeException ex) {
				if (jobs.isEmpty()) {
					throw ex;
				}
				// the jobs of earlier buckets are reserved: hand them over rather than let them
				// burn an attempt waiting for their TTR
				logger.debug("Reserve of topic '" + topic + "' stopped at bucket " + bucket + " with " + jobs.size()
						+ " job(s) taken: " + ex.getMessage());
				return jobs;
			}
			if (taken(topic, bucket, reply, 0, jobs) == 0) {
				signal.clear(bucket, candidate[1]);
			}
			if (jobs.size() >= max) {
				break;
			}
		}
		return jobs;
	}

	private static int attemptsLimit(Integer maxAttempts) {
		return (maxAttempts != null) ? JobConstraints.maxAttempts(maxAttempts) : 0;
	}

	/**
	 * Which buckets' ready lists of a topic hold entries: one {@code LLEN} per bucket, in one
	 * pipeline where the connection allows it. Cheaper than a reserve script per bucket for a
	 * topic this instance has not seen yet.
	 */
	private boolean[] readyLists(String topic) {
		return this.runner.execute("reading the ready lists of topic " + topic, (connection) -> {
			boolean[] nonEmpty = new boolean[this.keys.buckets()];
			List<byte[]> lists = new ArrayList<>(nonEmpty.length);
			for (int bucket = 0; bucket < nonEmpty.length; bucket++) {
				lists.add(this.keys.readyList(bucket, topic));
			}
			List<Object> lengths;
			try {
				connection.openPipeline();
				lists.forEach((list) -> connection.listCommands().lLen(list));
				lengths = connection.closePipeline();
			}
			catch (UnsupportedOperationException ex) {
				lengths = new ArrayList<>(lists.size());
				for (byte[] list : lists) {
					lengths.add(connection.listCommands().lLen(list));
				}
			}
			for (int bucket = 0; bucket < nonEmpty.length; bucket++) {
				Object length = lengths.get(bucket);
				nonEmpty[bucket] = !(length instanceof Long count) || count > 0;
			}
			return nonEmpty;
		});
	}

	private static long ttrMillis(Duration ttr) {
		return (ttr != null) ? JobConstraints.ttr(ttr).toMillis() : 0;
	}

	/**
	 * Reads what {@code take} in lib.lua appended to a reply, from {@code at}: ready left,
	 * now, announced deadline, then nine fields per job.
	 * @return the jobs left in the bucket's ready list
	 */
	private long taken(String topic, int bucket, List<Object> reply, int at, List<ReservedJob> jobs) {
		long now = Replies.asLong(reply.get(at + 1));
		this.redisClock.update(now);
		long announced = Replies.asLong(reply.get(at + 2));
		if (announced > 0) {
			this.timer.onHead(bucket, announced);
		}
		for (int i = at + 3; i + 8 < reply.size(); i += 9) {
			ReservedJob job = new ReservedJob(topic, Replies.asString(reply.get(i)), Replies.asBytes(reply.get(i + 1)),
					(int) Replies.asLong(reply.get(i + 2)), (int) Replies.asLong(reply.get(i + 3)),
					instant(reply.get(i + 4)), instant(reply.get(i + 5)), Instant.ofEpochMilli(now),
					instant(reply.get(i + 7)), Duration.ofMillis(Replies.asLong(reply.get(i + 8))),
					Replies.asLong(reply.get(i + 6)));
			jobs.add(job);
			this.observer.delivered(job);
		}
		return Replies.asLong(reply.get(at));
	}

	@Override
	public boolean awaitWork(String topic, Duration timeout) throws InterruptedException {
		JobConstraints.topic(topic);
		Assert.notNull(timeout, "timeout must not be null");
		return this.signals.topic(topic).await(timeout);
	}

	@Override
	public boolean finish(ReservedJob job) {
		Assert.notNull(job, "job must not be null");
		return finishAndReserve(List.of(job), 0, null).stale().isEmpty();
	}

	@Override
	public FinishResult finishAndReserve(List<ReservedJob> jobs, int max, Duration ttr, Integer maxAttempts) {
		String topic = JobConstraints.topicOf(jobs);
		JobConstraints.count("max", max, MAX_NEXT);
		long ttrMillis = ttrMillis(ttr);
		int attemptsLimit = attemptsLimit(maxAttempts);
		Map<Integer, List<ReservedJob>> byBucket = new LinkedHashMap<>();
		for (ReservedJob job : jobs) {
			byBucket.computeIfAbsent(bucketOf(job.topic(), job.id()), (bucket) -> new ArrayList<>()).add(job);
		}
		List<ReservedJob> stale = new ArrayList<>();
		List<ReservedJob> next = new ArrayList<>();
		int wanted = max;
		List<Map.Entry<Integer, List<ReservedJob>>> calls = new ArrayList<>();
		byBucket.forEach((bucket, all) -> {
			for (int from = 0; from < all.size(); from += FINISH_BATCH) {
				calls.add(Map.entry(bucket, all.subList(from, Math.min(all.size(), from + FINISH_BATCH))));
			}
		});
		for (Map.Entry<Integer, List<ReservedJob>> entry : calls) {
			int bucket = entry.getKey();
			List<ReservedJob> group = entry.getValue();
			Object[] values = new Object[4 + 2 * group.size()];
			values[0] = wanted;
			values[1] = ttrMillis;
			values[2] = topic;
			values[3] = attemptsLimit;
			for (int i = 0; i < group.size(); i++) {
				values[4 + 2 * i] = KeySpace.jobKey(group.get(i).topic(), group.get(i).id());
				values[5 + 2 * i] = group.get(i).token();
			}
			List<Object> reply;
			try {
				reply = Replies.list(this.runner.runReplicated(FINISH, call(bucket, values)));
			}
			catch (RuntimeException ex) {
				// the jobs reserved with an earlier bucket's finish would wait for their TTR
				// and burn an attempt: give them back before reporting the failure
				next.forEach(this::releaseQuietly);
				throw ex;
			}
			for (int i = 0; i < group.size(); i++) {
				if (Replies.asLong(reply.get(i)) == 1) {
					this.observer.completed(topic);
				}
				else {
					stale.add(group.get(i));
				}
			}
			if (wanted > 0) {
				taken(topic, bucket, reply, group.size(), next);
				wanted = 0;
			}
		}
		return new FinishResult(stale, next);
	}

	@Override
	public boolean release(ReservedJob job) {
		boolean released = held(RELEASE, job) == 1;
		if (released) {
			this.signals.markReady(job.topic(), bucketOf(job.topic(), job.id()));
		}
		return released;
	}

	private void releaseQuietly(ReservedJob job) {
		try {
			release(job);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not give back job " + job.id() + " of topic " + job.topic()
					+ " (it is delivered again after its TTR): " + ex.getMessage());
		}
	}

	private long held(LuaScript script, ReservedJob job) {
		Assert.notNull(job, "job must not be null");
		int bucket = bucketOf(job.topic(), job.id());
		List<Object> reply = Replies.list(this.runner.run(script, call(bucket, KeySpace.jobKey(job.topic(), job.id()), job.token())));
		return Replies.asLong(reply.get(0));
	}

	@Override
	public FailResult fail(ReservedJob job, Duration backOff, String error) {
		JobConstraints.backOff("backOff", backOff);
		return fail(job, backOff.toMillis(), error);
	}

	@Override
	public FailResult kill(ReservedJob job, String error) {
		return fail(job, -1, error);
	}

	private FailResult fail(ReservedJob job, long backOffMillis, String error) {
		Assert.notNull(job, "job must not be null");
		int bucket = bucketOf(job.topic(), job.id());
		List<Object> reply = Replies.list(this.runner.run(FAIL, call(bucket, KeySpace.jobKey(job.topic(), job.id()), job.token(), backOffMillis, JobConstraints.errorText(error))));
		long code = Replies.asLong(reply.get(0));
		if (code == 2) {
			this.observer.dead(job.topic());
			return FailResult.DEAD;
		}
		if (code != 1) {
			return FailResult.STALE;
		}
		afterWrite(job.topic(), bucket, (backOffMillis == 0) ? JobState.READY : JobState.DELAYED,
				Replies.asLong(reply.get(1)), Replies.asLong(reply.get(2)) == 1);
		this.observer.retried(job.topic());
		return FailResult.RETRYING;
	}

	@Override
	public Optional<Instant> touch(ReservedJob job, Duration ttr) {
		Assert.notNull(job, "job must not be null");
		Duration extension = (ttr != null) ? JobConstraints.ttr(ttr) : job.ttr();
		if (extension == null) {
			throw new IllegalArgumentException("ttr must be given: this reservation does not know its own");
		}
		int bucket = bucketOf(job.topic(), job.id());
		List<Object> reply = Replies.list(this.runner.run(TOUCH, call(bucket, KeySpace.jobKey(job.topic(), job.id()), job.token(), extension.toMillis())));
		return (Replies.asLong(reply.get(0)) == 1) ? Optional.of(instant(reply.get(1))) : Optional.empty();
	}

	// ---------------------------------------------------------------- figures

	@Override
	public QueueStats stats() {
		List<byte[][]> calls = new ArrayList<>(this.keys.buckets());
		for (int bucket = 0; bucket < this.keys.buckets(); bucket++) {
			calls.add(call(bucket));
		}
		List<Object> replies = this.runner.runAll(STATS, calls);
		Map<byte[], byte[]> owners = this.runner.execute("reading timer owners",
				(connection) -> connection.hashCommands().hGetAll(this.keys.timers()));
		String[] ownerOf = new String[this.keys.buckets()];
		if (owners != null) {
			owners.forEach((bucket, owner) -> {
				int b = Integer.parseInt(Replies.asString(bucket));
				if (b >= 0 && b < ownerOf.length) {
					ownerOf[b] = Replies.asString(owner);
				}
			});
		}
		Map<String, long[]> topics = new TreeMap<>();
		List<BucketStats> buckets = new ArrayList<>(replies.size());
		long readAt = 0;
		for (int bucket = 0; bucket < replies.size(); bucket++) {
			List<Object> v = Replies.list(replies.get(bucket));
			readAt = Math.max(readAt, Replies.asLong(v.get(0)));
			long[] bucketFigures = figures();
			for (int i = 3; i + 1 < v.size(); i += 2) {
				String field = Replies.asString(v.get(i));
				if (field.charAt(0) == 'T') {
					// tombstones of a ready list: not jobs
					continue;
				}
				long value = Replies.asLong(v.get(i + 1));
				long[] topicFigures = topics.computeIfAbsent(field.substring(2), (t) -> figures());
				if (field.charAt(0) == 'O') {
					topicFigures[4] = Math.min(topicFigures[4], value);
					bucketFigures[4] = Math.min(bucketFigures[4], value);
				}
				else {
					int index = JobState.fromCode(field.charAt(0)).ordinal();
					topicFigures[index] += value;
					bucketFigures[index] += value;
				}
			}
			buckets.add(new BucketStats(bucket, topicStats(bucketFigures), instantOrNull(v.get(1)),
					instantOrNull(v.get(2)), ownerOf[bucket]));
		}
		Map<String, TopicStats> byTopic = new TreeMap<>();
		topics.forEach((topic, figures) -> byTopic.put(topic, topicStats(figures)));
		return new QueueStats(List.copyOf(buckets), Collections.unmodifiableMap(byTopic),
				Instant.ofEpochMilli(readAt));
	}

	/**
	 * Counts of the four states (in {@link JobState} order) and the earliest overdue due
	 * time ({@link Long#MAX_VALUE}: none).
	 */
	private static long[] figures() {
		return new long[] { 0, 0, 0, 0, Long.MAX_VALUE };
	}

	private static TopicStats topicStats(long[] figures) {
		return new TopicStats(figures[0], figures[1], figures[2], figures[3],
				(figures[4] != Long.MAX_VALUE) ? Instant.ofEpochMilli(figures[4]) : null);
	}

	@Override
	public DeadJobPage deadJobs(String topic, String cursor, int limit, boolean payloads) {
		JobConstraints.topic(topic);
		JobConstraints.max("limit", limit, MAX_DEAD_PAGE);
		DeadJobCursor after = (cursor != null) ? DeadJobCursor.parse(cursor) : null;
		// every bucket's next (limit + 1) deaths after the cursor hold the page of all buckets
		// together, and say whether there is more
		List<byte[][]> calls = new ArrayList<>(this.keys.buckets());
		for (int bucket = 0; bucket < this.keys.buckets(); bucket++) {
			calls.add(call(bucket, topic, limit + 1, payloads ? "1" : "0", (after != null) ? after.diedAt() : "",
					(after != null) ? KeySpace.jobKey(topic, after.id()) : ""));
		}
		long total = 0;
		List<JobInfo> dead = new ArrayList<>();
		for (Object bucketReply : this.runner.runAll(DEAD, calls)) {
			List<Object> v = Replies.list(bucketReply);
			total += Replies.asLong(v.get(0));
			for (int i = 1; i + 8 < v.size(); i += 9) {
				String jobKey = Replies.asString(v.get(i));
				String error = Replies.asString(v.get(i + 7));
				dead.add(new JobInfo(topic, jobKey.substring(topic.length() + 1), JobState.DEAD,
						(int) Replies.asLong(v.get(i + 2)), (int) Replies.asLong(v.get(i + 3)),
						Duration.ofMillis(Replies.asLong(v.get(i + 4))), instant(v.get(i + 5)), instant(v.get(i + 6)),
						null, instant(v.get(i + 1)), error.isEmpty() ? null : error,
						payloads ? Replies.asBytes(v.get(i + 8)) : null));
			}
		}
		// the order of a dead list: time of death, then the job key's bytes
		dead.sort(Comparator.comparing(JobInfo::diedAt).thenComparing(DeadJobCursor::orderKey, Arrays::compareUnsigned));
		List<JobInfo> page = List.copyOf(dead.subList(0, Math.min(dead.size(), limit)));
		String next = (dead.size() > limit) ? DeadJobCursor.after(page.get(page.size() - 1)) : null;
		return new DeadJobPage(total, page, next);
	}

	@Override
	public RepairResult repair(boolean write) {
		Map<Integer, Set<String>> listed = listedTopics();
		long[] totals = new long[5];
		for (int bucket = 0; bucket < this.keys.buckets(); bucket++) {
			List<Object> values = new ArrayList<>();
			values.add(write ? "1" : "0");
			values.addAll(listed.getOrDefault(bucket, Set.of()));
			List<Object> reply = Replies.list(this.runner.run(REPAIR, call(bucket, values.toArray())));
			for (int i = 0; i < totals.length; i++) {
				totals[i] += Replies.asLong(reply.get(i));
			}
			if (write && Replies.asLong(reply.get(1)) > 0) {
				// jobs put back into a ready list: consumers look again
				this.signals.markBucket(bucket);
				this.timer.recheckAll();
			}
		}
		RepairResult result = new RepairResult(totals[0], totals[1], totals[2], totals[3], totals[4]);
		if (!result.isClean()) {
			logger.warn("delayqueue repair of namespace '" + this.keys.namespace() + "' " + (write ? "made" : "found")
					+ ": " + result);
		}
		return result;
	}

	/**
	 * The topics of each bucket that have a ready list or a dead list, from the keys
	 * themselves (SCAN, on every master of a cluster): a list whose topic has no job and no
	 * count left is found too. For {@link #repair} only.
	 */
	private Map<Integer, Set<String>> listedTopics() {
		String prefix = "{" + this.keys.namespace() + ":";
		ScanOptions options = ScanOptions.scanOptions().match(prefix + "*").count(1000).build();
		return this.runner.execute("listing the ready and dead lists", (connection) -> {
			Map<Integer, Set<String>> topics = new TreeMap<>();
			List<Cursor<byte[]>> scans = new ArrayList<>();
			if (connection instanceof RedisClusterConnection cluster) {
				for (RedisClusterNode master : cluster.clusterGetMasterReplicaMap().keySet()) {
					scans.add(cluster.scan(master, options));
				}
			}
			else {
				scans.add(connection.keyCommands().scan(options));
			}
			for (Cursor<byte[]> scan : scans) {
				try (scan) {
					while (scan.hasNext()) {
						String key = Replies.asString(scan.next());
						int end = key.indexOf("}:");
						if (end <= prefix.length()) {
							continue;
						}
						String rest = key.substring(end + 2);
						String topic = rest.startsWith("ready:") ? rest.substring(6)
								: rest.startsWith("dead:") ? rest.substring(5) : null;
						try {
							int bucket = Integer.parseInt(key.substring(prefix.length(), end));
							if (topic != null && bucket >= 0 && bucket < this.keys.buckets()) {
								topics.computeIfAbsent(bucket, (b) -> new TreeSet<>()).add(topic);
							}
						}
						catch (NumberFormatException ex) {
							// another namespace that starts with this one's name
						}
					}
				}
			}
			return topics;
		});
	}

	// ---------------------------------------------------------------- accessors

	/**
	 * This instance's name in the heartbeat set and as timer owner.
	 * @return the instance id
	 */
	public String getInstanceId() {
		return this.instanceId;
	}

	/**
	 * The namespace: the prefix of every key and of the channel.
	 * @return the namespace
	 */
	public String getNamespace() {
		return this.keys.namespace();
	}

	/**
	 * The number of buckets.
	 * @return the bucket count
	 */
	public int getBuckets() {
		return this.keys.buckets();
	}

	/**
	 * The bucket a job belongs to.
	 * @param topic the topic
	 * @param id the job id
	 * @return {@code crc32(topic + ":" + id) mod buckets}
	 */
	public int bucketOf(String topic, String id) {
		JobConstraints.topic(topic);
		JobConstraints.id(id);
		return this.keys.bucketOf(topic, id);
	}

	/**
	 * The bucket timer of this instance (for health and metrics).
	 * @return the timer
	 */
	public BucketTimer getTimer() {
		return this.timer;
	}

	/**
	 * Whether the event subscription is active.
	 * @return {@code true} while subscribed
	 */
	public boolean isSubscribed() {
		return this.subscriber.isListening();
	}

	/**
	 * The connection factory the queue talks to Redis through.
	 * @return the connection factory
	 */
	public RedisConnectionFactory getConnectionFactory() {
		return this.connectionFactory;
	}

	// ---------------------------------------------------------------- helpers

	/**
	 * The keys and arguments of a job script call on a bucket: its jobs hash and guard, the
	 * channel, the bucket number, then the script's own values (byte arrays as they are,
	 * anything else as its decimal or text form).
	 */
	private byte[][] call(int bucket, Object... values) {
		byte[][] call = new byte[values.length + 4][];
		call[0] = this.keys.jobs(bucket);
		call[1] = this.keys.guard(bucket);
		call[2] = this.channel;
		call[3] = KeySpace.bytes(String.valueOf(bucket));
		for (int i = 0; i < values.length; i++) {
			Object value = values[i];
			call[i + 4] = (value instanceof byte[] bytes) ? bytes : KeySpace.bytes(String.valueOf(value));
		}
		return call;
	}

	private static JobState state(Object code) {
		return JobState.fromCode(Replies.asString(code).charAt(0));
	}

	private static Instant instant(Object millis) {
		return Instant.ofEpochMilli(Replies.asLong(millis));
	}

	private static Instant instantOrNull(Object millis) {
		long value = Replies.asLong(millis);
		return (value > 0) ? Instant.ofEpochMilli(value) : null;
	}

	/**
	 * The timer's side of Redis.
	 */
	private final class Backend implements TimerBackend {

		@Override
		public Coordination coordinate(boolean leaving, boolean renewOnly) {
			byte[][] keysAndArgs = { keys.instances(), keys.timers(), KeySpace.bytes(instanceId),
					KeySpace.bytes(String.valueOf(leaseTtl.toMillis())),
					KeySpace.bytes(String.valueOf(keys.buckets())), KeySpace.bytes(leaving ? "1" : "0"), channel,
					KeySpace.bytes(renewOnly ? "1" : "0") };
			List<Object> reply = Replies.list(runner.run(COORDINATE, keysAndArgs));
			int[] owned = new int[reply.size() - 2];
			for (int i = 2; i < reply.size(); i++) {
				owned[i - 2] = (int) Replies.asLong(reply.get(i));
			}
			Arrays.sort(owned);
			return new Coordination((int) Replies.asLong(reply.get(0)), Replies.asLong(reply.get(1)), owned);
		}

		@Override
		public Promotion promote(int bucket, boolean guard) {
			List<Object> reply = Replies.list(
					runner.run(PROMOTE, call(bucket, batchSize, guard ? "1" : "0")));
			int readyTopics = (int) Replies.asLong(reply.get(4));
			List<String> topics = new ArrayList<>(readyTopics);
			for (int i = 5; i < 5 + readyTopics; i++) {
				topics.add(Replies.asString(reply.get(i)));
			}
			for (int i = 5 + readyTopics; i + 2 < reply.size(); i += 3) {
				expired(Replies.asString(reply.get(i)), Replies.asLong(reply.get(i + 1)),
						Replies.asLong(reply.get(i + 2)));
			}
			return new Promotion((int) Replies.asLong(reply.get(0)), (int) Replies.asLong(reply.get(1)),
					Replies.asLong(reply.get(2)), Replies.asLong(reply.get(3)), topics);
		}

	}

	private void expired(String topic, long requeued, long dead) {
		for (long i = 0; i < requeued + dead; i++) {
			this.observer.expired(topic);
		}
		for (long i = 0; i < dead; i++) {
			this.observer.dead(topic);
		}
	}

	/**
	 * Builds a {@link RedisDelayQueue}; every setting has the default documented on it.
	 */
	public static final class Builder {

		private final RedisConnectionFactory connectionFactory;

		private String namespace = "delayqueue";

		private int buckets = 16;

		private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

		private Duration defaultTtr = Duration.ofSeconds(60);

		private int defaultMaxAttempts = 5;

		private boolean timerEnabled = true;

		private int batchSize = 500;

		private Duration guardInterval = Duration.ofSeconds(60);

		private Duration leaseTtl = Duration.ofSeconds(5);

		private int waitReplicas;

		private Duration waitTimeout = Duration.ofSeconds(1);

		private boolean failFast = true;

		private String instanceId;

		private LongSupplier nanoTime = System::nanoTime;

		private final List<DelayQueueObserver> observers = new ArrayList<>();

		private Builder(RedisConnectionFactory connectionFactory) {
			Assert.notNull(connectionFactory, "connectionFactory must not be null");
			this.connectionFactory = connectionFactory;
		}

		/**
		 * Prefix of every key and of the channel; default {@code delayqueue}.
		 * @param namespace the namespace
		 * @return this builder
		 */
		public Builder namespace(String namespace) {
			this.namespace = namespace;
			return this;
		}

		/**
		 * Number of buckets; default 16. Every instance of a namespace must use the same.
		 * @param buckets the bucket count
		 * @return this builder
		 */
		public Builder buckets(int buckets) {
			this.buckets = buckets;
			return this;
		}

		/**
		 * Largest payload; default 1 MiB.
		 * @param maxPayloadSize the largest payload after serialization
		 * @return this builder
		 */
		public Builder maxPayloadSize(DataSize maxPayloadSize) {
			Assert.notNull(maxPayloadSize, "maxPayloadSize must not be null");
			this.maxPayloadSize = maxPayloadSize;
			return this;
		}

		/**
		 * TTR of jobs scheduled without one; default 60 s.
		 * @param defaultTtr the default time-to-run
		 * @return this builder
		 */
		public Builder defaultTtr(Duration defaultTtr) {
			this.defaultTtr = defaultTtr;
			return this;
		}

		/**
		 * Attempts of jobs scheduled without a number; default 5.
		 * @param defaultMaxAttempts the default attempts limit
		 * @return this builder
		 */
		public Builder defaultMaxAttempts(int defaultMaxAttempts) {
			this.defaultMaxAttempts = defaultMaxAttempts;
			return this;
		}

		/**
		 * Whether this instance takes part in running bucket timers; default true.
		 * @param timerEnabled {@code false} to leave the timers to other instances
		 * @return this builder
		 */
		public Builder timerEnabled(boolean timerEnabled) {
			this.timerEnabled = timerEnabled;
			return this;
		}

		/**
		 * Most jobs one promote script moves; default 500.
		 * @param batchSize the most jobs per promote call
		 * @return this builder
		 */
		public Builder batchSize(int batchSize) {
			this.batchSize = batchSize;
			return this;
		}

		/**
		 * How often every owned bucket is re-checked and the shares fully re-coordinated;
		 * default 60 s.
		 * @param guardInterval the guard interval
		 * @return this builder
		 */
		public Builder guardInterval(Duration guardInterval) {
			this.guardInterval = guardInterval;
			return this;
		}

		/**
		 * How long an instance's buckets stay its own without a heartbeat; default 5 s. The
		 * heartbeat is sent every two fifths of it (at most every 2 s).
		 * @param leaseTtl the lease
		 * @return this builder
		 */
		public Builder leaseTtl(Duration leaseTtl) {
			this.leaseTtl = leaseTtl;
			return this;
		}

		/**
		 * How many replicas must have a schedule or a finish before it returns ({@code WAIT});
		 * default 0: acknowledged once on the master.
		 * @param waitReplicas the replicas to wait for
		 * @return this builder
		 */
		public Builder waitReplicas(int waitReplicas) {
			this.waitReplicas = waitReplicas;
			return this;
		}

		/**
		 * How long a schedule or finish waits for its replicas; default 1 s.
		 * @param waitTimeout the longest wait for them
		 * @return this builder
		 */
		public Builder waitTimeout(Duration waitTimeout) {
			this.waitTimeout = waitTimeout;
			return this;
		}

		/**
		 * Whether {@link RedisDelayQueue#start()} throws when Redis is unreachable; default
		 * true. Without, the queue starts anyway: producers get a
		 * {@link io.github.delayqueue.core.DelayQueueConnectionException} and the timer and
		 * listeners retry until Redis answers, and the start-up checks (version, bucket count)
		 * run before the first call that reaches Redis.
		 * @param failFast whether an unreachable Redis fails the start
		 * @return this builder
		 */
		public Builder failFast(boolean failFast) {
			this.failFast = failFast;
			return this;
		}

		/**
		 * This instance's name; default host, process id and a random suffix.
		 * @param instanceId the instance name
		 * @return this builder
		 */
		public Builder instanceId(String instanceId) {
			this.instanceId = instanceId;
			return this;
		}

		/**
		 * The monotonic clock that the estimate of Redis's time advances by between replies
		 * (only differences of its readings are used; due times come from Redis). Default
		 * {@link System#nanoTime()}. For tests.
		 */
		Builder nanoTime(LongSupplier nanoTime) {
			Assert.notNull(nanoTime, "nanoTime must not be null");
			this.nanoTime = nanoTime;
			return this;
		}

		/**
		 * Adds an observer of what this instance does to jobs (metrics hang on it); none by
		 * default.
		 * @param observer the observer to add
		 * @return this builder
		 */
		public Builder observer(DelayQueueObserver observer) {
			Assert.notNull(observer, "observer must not be null");
			this.observers.add(observer);
			return this;
		}

		/**
		 * Builds the queue. The settings are checked here; the check of the Redis server,
		 * the event subscription and the timer begin with {@link RedisDelayQueue#start()}.
		 * @return a new queue
		 * @throws IllegalArgumentException if a setting is out of range
		 */
		public RedisDelayQueue build() {
			return new RedisDelayQueue(this);
		}

	}

}
