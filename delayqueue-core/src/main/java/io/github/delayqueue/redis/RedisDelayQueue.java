package io.github.delayqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.delayqueue.core.CompletedJobPage;
import io.github.delayqueue.core.DeadJobPage;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueOperations;
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

/**
 * The Redis implementation of {@link DelayQueueOperations}, and this instance's share of the
 * bucket timers. {@link #start()} subscribes to the namespace's events and starts the timer;
 * {@link #stop()} hands this instance's buckets to the others. Producing and consuming work
 * without a start, while other instances' timers move the jobs. Build one with
 * {@link #builder(RedisConnectionFactory)}. Thread-safe.
 */
public class RedisDelayQueue implements DelayQueueOperations, SmartLifecycle {

	/** The lifecycle phase: after most beans, before the listener containers. */
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

	private final RedisProducer producer;

	private final RedisConsumer consumer;

	private final RedisAdmin admin;

	private final RateLimits rateLimits;

	private final CompletedJobs completed;

	private final Object lifecycleMonitor = new Object();

	private volatile boolean running;

	RedisDelayQueue(RedisDelayQueueBuilder builder) {
		this.connectionFactory = builder.connectionFactory;
		BucketCount.Resolved buckets = (builder.buckets != null)
				? new BucketCount.Resolved(builder.buckets, BucketCount.Origin.SET)
				: BucketCount.resolve(builder.connectionFactory, builder.namespace, builder.failFast);
		this.keys = new KeySpace(builder.namespace, buckets.count());
		this.startupChecks = new StartupChecks(new ScriptRunner(builder.connectionFactory), this.keys,
				buckets.origin());
		this.failFast = builder.failFast;
		ScriptRunner runner = new ScriptRunner(builder.connectionFactory,
				new ReplicaWait(builder.waitReplicas, builder.waitTimeout), this.startupChecks::beforeCall);
		QueueScripts scripts = new QueueScripts(runner, this.keys);
		long maxPayloadSize = builder.maxPayloadSize.toBytes();
		this.timerEnabled = builder.timerEnabled;
		this.instanceId = builder.instanceId();
		RedisClock clock = new RedisClock(builder.nanoTime);
		DelayQueueObserver observer = DelayQueueObserver.composite(builder.observers);
		this.signals = new ReadySignals(this.keys.buckets(), RedisConsumer.readyListProbe(runner, this.keys));
		RecurringFiring firing = new RecurringFiring(scripts, this.keys, builder.defaultTtr,
				builder.defaultMaxAttempts, observer);
		this.rateLimits = new RateLimits(runner, this.keys, builder.rateLimits);
		FailedJobs failedJobs = new FailedJobs(runner, scripts, this.keys,
				builder.retention(Retention::limitsFailed), observer);
		// a topic with a rate limit takes permits before its jobs: none is reserved at once
		boolean reserveAtOnce = builder.reserveForWaitingConsumers;
		this.timerBackend = new RedisTimerBackend(scripts, this.signals, this.instanceId, builder.leaseTtl,
				builder.batchSize, observer, firing, failedJobs, this::recheckTimers,
				(topic) -> reserveAtOnce && this.rateLimits.of(topic) == null);
		this.timer = new BucketTimer(this.timerBackend,
				this.keys.buckets(), builder.batchSize, builder.coordinationInterval(), builder.guardInterval, clock,
				this.signals::markReady, () -> {
					logger.warn("Redis lost the data of namespace '" + this.keys.namespace() + "' (a restart without"
							+ " persistence, a flush, or an eviction of its keys): the jobs written before are gone;"
							+ " its bucket count is pinned again and the declared recurring jobs are put again");
					observer.dataLost(this.keys.namespace());
				});
		this.subscriber = new EventSubscriber(builder.connectionFactory, this.keys.channel(), this.signals,
				this.timer);
		this.completed = new CompletedJobs(runner, this.keys, builder.retention(Retention::keepsCompleted));
		this.producer = new RedisProducer(scripts, this.keys, this.signals, this.timer, observer, maxPayloadSize,
				builder.defaultTtr, builder.defaultMaxAttempts, this.completed);
		this.consumer = new RedisConsumer(scripts, this.keys, this.signals, this.timerBackend, this.timer, clock,
				observer, this.completed, failedJobs, this.rateLimits);
		this.admin = new RedisAdmin(scripts, runner, this.keys, this.signals, this.timer, this.completed);
		this.recurringJobs = new RedisRecurringJobs(scripts, this.keys, firing, this.signals, this.timer, maxPayloadSize);
	}

	/**
	 * Starts building a queue on a connection factory.
	 * @param connectionFactory the Redis connection factory (Lettuce or Jedis)
	 * @return the builder
	 */
	public static RedisDelayQueueBuilder builder(RedisConnectionFactory connectionFactory) {
		return new RedisDelayQueueBuilder(connectionFactory);
	}

	/**
	 * Checks Redis, subscribes to the namespace's events and starts this instance's timers.
	 * @throws io.github.delayqueue.core.DelayQueueConnectionException when Redis is
	 * unreachable and the queue fails fast
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
				this.timerBackend.start();
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
				// what was reserved for waiting consumers goes back before the timer stops
				this.timerBackend.stop();
				this.timer.stop();
			}
			this.subscriber.stop();
			this.signals.wakeAll();
		}
	}

	/** Stops the timer and the subscription without giving up the buckets, as a crash would: for tests. */
	void halt() {
		synchronized (this.lifecycleMonitor) {
			this.running = false;
			this.timer.halt();
			this.timerBackend.halt();
			this.subscriber.stop();
		}
	}

	private void recheckTimers() {
		this.timer.recheckAll();
	}

	/** This instance's pub/sub subscription, which the outcome stream shares. */
	EventSubscriber subscriber() {
		return this.subscriber;
	}

	/** Stops listening to the channel and nothing else: for tests. */
	void stopListening() {
		this.subscriber.stop();
	}

	/** The Redis side of the timer's steps: for tests. */
	RedisTimerBackend timerBackend() {
		return this.timerBackend;
	}

	/** Where this instance knows READY jobs wait: for tests. */
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
		this.rateLimits.set(topic, limit);
	}

	@Override
	public Optional<RateLimit> rateLimit(String topic) {
		return Optional.ofNullable(this.rateLimits.of(JobConstraints.topic(topic)));
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
		return this.completed.page(topic, cursor, limit, payloads);
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

	/**
	 * The namespace's recurring jobs, fired by the instances that run timers.
	 * @return the recurring jobs
	 */
	public RecurringJobs getRecurringJobs() {
		return this.recurringJobs;
	}

	/**
	 * This instance's name in the heartbeat set and as timer owner.
	 * @return the instance id
	 */
	public String getInstanceId() {
		return this.instanceId;
	}

	/**
	 * The prefix of every key and of the channel.
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
	 * The status of this instance's bucket timer.
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
	 * The connection factory of the queue.
	 * @return the connection factory
	 */
	public RedisConnectionFactory getConnectionFactory() {
		return this.connectionFactory;
	}

}
