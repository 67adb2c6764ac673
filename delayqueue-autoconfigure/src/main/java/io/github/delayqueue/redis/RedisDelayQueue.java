package io.github.delayqueue.redis;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import io.github.delayqueue.core.CompletedJobPage;
import io.github.delayqueue.core.DeadJobPage;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayQueueProducer;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.FinishResult;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.RepairResult;
import io.github.delayqueue.core.ReplayResult;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.Retention;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.ScheduleResult;
import io.github.delayqueue.recurring.RecurringJobs;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
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
 *
 * <p>
 * This class wires the parts and runs their lifecycle; each operation is delegated to the
 * part of its side: {@link RedisProducer}, {@link RedisConsumer}, {@link RedisAdmin}, all
 * calling Redis through {@link QueueScripts}, with the timer ({@link BucketTimer} on
 * {@link RedisTimerBackend}) and the wake-ups ({@link Wakeups}, {@link EventSubscriber})
 * beside them. This file is long for a facade: the {@link Builder} (a third of it, its settings
 * documented) is nested because {@code RedisDelayQueue.Builder} is public API, and one
 * delegating method per operation is another fifth.
 */
public class RedisDelayQueue implements DelayQueueOperations, SmartLifecycle {

	/**
	 * The lifecycle phase: after most beans start, before the listener containers (which
	 * start later and stop earlier), and before the Redis connection factory stops.
	 */
	public static final int PHASE = Integer.MAX_VALUE - 2048;

	private static final Log logger = LogFactory.getLog(RedisDelayQueue.class);

	private final RedisConnectionFactory connectionFactory;

	private final KeySpace keys;

	private final StartupChecks startupChecks;

	private final boolean failFast;

	private final boolean timerEnabled;

	private final String instanceId;

	private final ReadySignals signals;

	private final BucketTimer timer;

	private final RedisTimerBackend timerBackend;

	private final RedisRecurringJobs recurringJobs;

	private final EventSubscriber subscriber;

	private final ReadyAnnouncer announcer;

	private final DelayQueueProducer producer;

	private final DelayQueueConsumer consumer;

	private final DelayQueueAdmin admin;

	private final Object lifecycleMonitor = new Object();

	private volatile boolean running;

	private RedisDelayQueue(Builder builder) {
		this.connectionFactory = builder.connectionFactory;
		BucketCount.Resolved buckets = (builder.buckets != null)
				? new BucketCount.Resolved(builder.buckets, BucketCount.Origin.SET)
				: BucketCount.resolve(builder.connectionFactory, JobConstraints.namespace(builder.namespace),
						builder.failFast);
		this.keys = new KeySpace(builder.namespace, buckets.count());
		Assert.isTrue(builder.waitReplicas >= 0, () -> "waitReplicas must not be negative, was " + builder.waitReplicas);
		JobConstraints.positive("waitTimeout", builder.waitTimeout, Duration.ofMinutes(1));
		this.startupChecks = new StartupChecks(new ScriptRunner(builder.connectionFactory), this.keys,
				buckets.origin());
		this.failFast = builder.failFast;
		ScriptRunner runner = new ScriptRunner(builder.connectionFactory,
				new ReplicaWait(builder.waitReplicas, builder.waitTimeout), this.startupChecks::beforeCall);
		QueueScripts scripts = new QueueScripts(runner, this.keys);
		long maxPayloadSize = builder.maxPayloadSize.toBytes();
		Duration defaultTtr = JobConstraints.ttr(builder.defaultTtr);
		int defaultMaxAttempts = JobConstraints.maxAttempts(builder.defaultMaxAttempts);
		this.timerEnabled = builder.timerEnabled;
		int batchSize = JobConstraints.max("batchSize", builder.batchSize, 10_000);
		Duration leaseTtl = JobConstraints.positive("leaseTtl", builder.leaseTtl, Duration.ofMinutes(10));
		JobConstraints.positive("guardInterval", builder.guardInterval, Duration.ofHours(1));
		this.instanceId = (builder.instanceId != null) ? builder.instanceId : defaultInstanceId();
		RedisClock clock = new RedisClock(builder.nanoTime);
		DelayQueueObserver observer = DelayQueueObserver.composite(builder.observers);
		this.signals = new ReadySignals(this.keys.buckets(), RedisConsumer.readyListProbe(runner, this.keys));
		RecurringFiring firing = new RecurringFiring(scripts, this.keys, defaultTtr, defaultMaxAttempts, observer);
		RateLimits rateLimits = new RateLimits(runner, this.keys, builder.rateLimits);
		// a topic with a rate limit takes permits before its jobs: none is reserved at once
		this.announcer = new ReadyAnnouncer(this.signals, scripts, this::recheckTimers,
				(topic) -> rateLimits.of(topic) == null);
		FailedJobs failedJobs = new FailedJobs(runner, scripts, this.keys,
				retention(builder.retention, Retention::limitsFailed), observer);
		this.timerBackend = new RedisTimerBackend(scripts, this.instanceId, leaseTtl, batchSize, observer, firing,
				this.announcer, failedJobs);
		this.timer = new BucketTimer(this.timerBackend,
				this.keys.buckets(), batchSize, coordinationInterval(leaseTtl), builder.guardInterval, clock,
				this.signals::markReady, () -> {
					logger.warn("Redis lost the data of namespace '" + this.keys.namespace() + "' (a restart without"
							+ " persistence, a flush, or an eviction of its keys): the jobs written before are gone;"
							+ " its bucket count is pinned again and the declared recurring jobs are put again");
					observer.dataLost(this.keys.namespace());
				});
		Wakeups wakeups = new Wakeups(this.signals, this.timer);
		this.subscriber = new EventSubscriber(builder.connectionFactory, this.keys.channel(), wakeups);
		CompletedJobs completed = new CompletedJobs(runner, this.keys,
				retention(builder.retention, Retention::keepsCompleted));
		this.producer = new RedisProducer(scripts, this.keys, wakeups, observer, maxPayloadSize, defaultTtr,
				defaultMaxAttempts, completed);
		this.consumer = new RedisConsumer(scripts, this.keys, this.signals, wakeups, clock, observer, completed,
				failedJobs, rateLimits);
		this.admin = new RedisAdmin(scripts, runner, this.keys, wakeups, completed);
		this.recurringJobs = new RedisRecurringJobs(scripts, this.keys, firing, wakeups, maxPayloadSize);
	}

	private static Map<String, Retention> retention(Map<String, Retention> retention, Predicate<Retention> part) {
		Map<String, Retention> topics = new LinkedHashMap<>();
		retention.forEach((topic, kept) -> {
			if (part.test(kept)) {
				topics.put(topic, kept);
			}
		});
		return topics;
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
				this.announcer.start();
				this.timer.start();
			}
			this.running = true;
			logger.info("delayqueue started: namespace '" + this.keys.namespace() + "', " + this.keys.buckets()
					+ ((this.keys.buckets() == 1) ? " bucket" : " buckets") + ", instance '" + this.instanceId + "', timer " + (this.timerEnabled ? "on" : "off"));
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
				// first no step reserves for waiting consumers any more, and what was reserved
				// for them and not taken is given back; then the timer stops
				this.announcer.stop();
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
			this.announcer.halt();
			this.subscriber.stop();
		}
	}

	private void recheckTimers() {
		this.timer.recheckAll();
	}

	/**
	 * Stops listening to the channel and nothing else, as a pub/sub connection that cannot be
	 * restored would: for tests.
	 */
	void stopListening() {
		this.subscriber.stop();
	}

	/**
	 * Whether a bucket of a topic is marked here as holding READY jobs: for tests.
	 * @param topic the topic
	 * @param bucket the bucket
	 * @return {@code true} when marked
	 */
	boolean isMarked(String topic, int bucket) {
		return this.signals.isMarked(topic, bucket);
	}

	/**
	 * How many consumers of a topic wait here with no work marked: for tests.
	 * @param topic the topic
	 * @return the idle consumers
	 */
	int idleConsumers(String topic) {
		return this.signals.idleConsumers(topic);
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
		return this.timer.promoteNow(bucket, guard);
	}

	/**
	 * Runs a timer step (not a guard re-check) on one bucket with the given offers, for tests:
	 * the jobs it reserves for them are the caller's, not handed to any consumer.
	 * @param bucket the bucket
	 * @param offers the offers, one per topic
	 * @return the step's reply
	 */
	ScriptReplies.Promoted promoteOffering(int bucket, List<ReadySignals.Offering> offers) {
		ScriptReplies.Promoted promoted = this.timerBackend.promote(bucket, false, offers, (topic, jobs) -> {
		});
		// as the timer's loop and promoteNow do
		promoted.promotion().topics().forEach((topic) -> this.signals.markReady(topic, bucket));
		return promoted;
	}

	/**
	 * What this instance knows of where READY jobs wait, and its consumers' offers; for tests.
	 * @return the signals
	 */
	ReadySignals signals() {
		return this.signals;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	// ---------------------------------------------------------------- operations

	@Override
	public ScheduleResult schedule(ScheduleRequest request) {
		return this.producer.schedule(request);
	}

	@Override
	public void check(ScheduleRequest request) {
		this.producer.check(request);
	}

	@Override
	public List<ScheduleResult> scheduleAll(List<ScheduleRequest> requests) {
		return this.producer.scheduleAll(requests);
	}

	@Override
	public boolean cancel(String topic, String id) {
		return this.producer.cancel(topic, id);
	}

	@Override
	public RescheduleResult reschedule(String topic, String id, Duration delay) {
		return this.producer.reschedule(topic, id, delay);
	}

	@Override
	public RescheduleResult rescheduleAt(String topic, String id, Instant dueAt) {
		return this.producer.rescheduleAt(topic, id, dueAt);
	}

	@Override
	public Optional<JobInfo> find(String topic, String id) {
		return this.producer.find(topic, id);
	}

	@Override
	public List<ReservedJob> reserve(String topic, int max, @Nullable Duration ttr, @Nullable Integer maxAttempts) {
		return this.consumer.reserve(topic, max, ttr, maxAttempts);
	}

	@Override
	public boolean awaitWork(String topic, Duration timeout) throws InterruptedException {
		return this.consumer.awaitWork(topic, timeout);
	}

	@Override
	public boolean awaitWork(String topic, Duration timeout, int max, @Nullable Duration ttr,
			@Nullable Integer maxAttempts) throws InterruptedException {
		return this.consumer.awaitWork(topic, timeout, max, ttr, maxAttempts);
	}

	@Override
	public boolean finish(ReservedJob job) {
		return this.consumer.finish(job);
	}

	@Override
	public FinishResult finishAndReserve(List<ReservedJob> jobs, int max, @Nullable Duration ttr,
			@Nullable Integer maxAttempts) {
		return this.consumer.finishAndReserve(jobs, max, ttr, maxAttempts);
	}

	@Override
	public FailResult fail(ReservedJob job, Duration backOff, String error) {
		return this.consumer.fail(job, backOff, error);
	}

	@Override
	public FailResult kill(ReservedJob job, String error) {
		return this.consumer.kill(job, error);
	}

	@Override
	public Optional<Instant> touch(ReservedJob job, @Nullable Duration ttr) {
		return this.consumer.touch(job, ttr);
	}

	@Override
	public void limitRate(String topic, @Nullable RateLimit limit) {
		this.consumer.limitRate(topic, limit);
	}

	@Override
	public Optional<RateLimit> rateLimit(String topic) {
		return this.consumer.rateLimit(topic);
	}

	@Override
	public int release(List<ReservedJob> jobs) {
		return this.consumer.release(jobs);
	}

	@Override
	public boolean release(ReservedJob job) {
		return this.consumer.release(job);
	}

	@Override
	public QueueStats stats() {
		return this.admin.stats();
	}

	@Override
	public Map<String, Instant> instances() {
		return this.admin.instances();
	}

	@Override
	public DeadJobPage deadJobs(String topic, @Nullable String cursor, int limit, boolean payloads) {
		return this.admin.deadJobs(topic, cursor, limit, payloads);
	}

	@Override
	public CompletedJobPage completedJobs(String topic, @Nullable String cursor, int limit, boolean payloads) {
		return this.admin.completedJobs(topic, cursor, limit, payloads);
	}

	@Override
	public ReplayResult replayDeadJobs(String topic, int max) {
		return this.admin.replayDeadJobs(topic, max);
	}

	@Override
	public boolean replayDead(String topic, String id) {
		return this.admin.replayDead(topic, id);
	}

	@Override
	public RepairResult repair(boolean write) {
		return this.admin.repair(write);
	}

	// ---------------------------------------------------------------- accessors

	/**
	 * The namespace's recurring jobs. Their ticks are fired by the instance that runs the timer
	 * of each definition's bucket, so at least one instance must run timers.
	 * @return the recurring jobs
	 */
	public RecurringJobs getRecurringJobs() {
		return this.recurringJobs;
	}

	/**
	 * Fires the recurring jobs of one bucket now, as this instance's timer does when their tick
	 * has come: for tests that drive the timer themselves, on a queue built with
	 * {@code timerEnabled(false)}.
	 * @param bucket the bucket
	 * @return the topics that got READY occurrences
	 */
	List<String> fireRecurringNow(int bucket) {
		return this.timer.fireRecurringNow(bucket).topics();
	}

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
		return this.keys.checkedBucketOf(topic, id);
	}

	/**
	 * What health checks and metrics read of this instance's bucket timer.
	 * @return the timer's status
	 */
	public TimerStatus getTimer() {
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

	/**
	 * Builds a {@link RedisDelayQueue}; every setting has the default documented on it.
	 */
	public static final class Builder {

		private final RedisConnectionFactory connectionFactory;

		private String namespace = "delayqueue";

		private @Nullable Integer buckets;

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

		private @Nullable String instanceId;

		private LongSupplier nanoTime = System::nanoTime;

		private final List<DelayQueueObserver> observers = new ArrayList<>();

		private final Map<String, Retention> retention = new LinkedHashMap<>();

		private final Map<String, RateLimit> rateLimits = new LinkedHashMap<>();

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
		 * Number of buckets, 1 to 16384. Every instance of a namespace must use the same count:
		 * the first instance pins it in the namespace, and an instance with another count
		 * refuses to start. Without this setting the queue asks Redis once, when it is built,
		 * and takes the count the namespace was created with; for a new namespace 16 on a
		 * Redis Cluster (the buckets spread over its masters) and 1 on one server, standalone
		 * or behind Sentinel (where more buckets only add work); a namespace without a pinned
		 * count whose higher buckets are in use is refused. When Redis cannot be reached then,
		 * the build fails if the queue fails fast ({@link #failFast}); otherwise the connection
		 * factory's configuration decides between 16 and 1, and the start-up check reads the
		 * namespace before that count could be used.
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
		 * @param instanceId the instance name, or {@code null} for the default
		 * @return this builder
		 */
		public Builder instanceId(@Nullable String instanceId) {
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
		 * Keeps a topic's finished jobs, so that {@code find} answers
		 * {@link io.github.delayqueue.core.JobState#COMPLETED} for them, and/or limits the DEAD
		 * jobs it keeps; by default a topic keeps no finished jobs and every DEAD job. Every
		 * instance that finishes or fails jobs of the topic should be given the same retention
		 * (the instance that finishes a job, or whose consumer or timer sees it die, applies its
		 * own).
		 * @param topic the topic
		 * @param retention what it keeps, or {@code null} for the default
		 * @return this builder
		 */
		public Builder retention(String topic, @Nullable Retention retention) {
			JobConstraints.topic(topic);
			if (retention != null) {
				this.retention.put(topic, retention);
			}
			else {
				this.retention.remove(topic);
			}
			return this;
		}

		/**
		 * Limits how many jobs of a topic this instance's reserves hand out
		 * ({@link RateLimit}); by default a topic has no limit. Give every instance that
		 * consumes the topic the same limit. {@link RedisDelayQueue#limitRate} sets one later
		 * (a listener with a rate limit does).
		 * @param topic the topic
		 * @param limit the limit, or {@code null} for none
		 * @return this builder
		 */
		public Builder rateLimit(String topic, @Nullable RateLimit limit) {
			JobConstraints.topic(topic);
			if (limit != null) {
				this.rateLimits.put(topic, limit);
			}
			else {
				this.rateLimits.remove(topic);
			}
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
