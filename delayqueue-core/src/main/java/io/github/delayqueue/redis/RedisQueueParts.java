package io.github.delayqueue.redis;

import java.time.Duration;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.Retention;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The parts of a {@link RedisDelayQueue}, wired from its builder; {@link RedisProducer},
 * {@link RedisConsumer} and {@link RedisAdmin} add the queue's sides on top.
 */
abstract class RedisQueueParts {

	private static final Log logger = LogFactory.getLog(RedisDelayQueue.class);

	final RedisConnectionFactory connectionFactory;

	final KeySpace keys;

	final StartupChecks startupChecks;

	final ScriptRunner runner;

	final QueueScripts scripts;

	final RedisClock clock;

	final DelayQueueObserver observer;

	final ReadySignals signals;

	final RateLimits rateLimits;

	final RetainedJobs retained;

	final RedisTimerBackend timerBackend;

	final BucketTimer timer;

	final EventSubscriber subscriber;

	final RedisRecurringJobs recurringJobs;

	final String instanceId;

	final long maxPayloadSize;

	final Duration defaultTtr;

	final int defaultMaxAttempts;

	final boolean failFast;

	final boolean timerEnabled;

	RedisQueueParts(RedisDelayQueueBuilder builder) {
		this.connectionFactory = builder.connectionFactory;
		StartupChecks.Resolved buckets = (builder.buckets != null)
				? new StartupChecks.Resolved(builder.buckets, StartupChecks.Origin.SET)
				: StartupChecks.resolve(builder.connectionFactory, builder.namespace, builder.failFast);
		this.keys = new KeySpace(builder.namespace, buckets.count());
		this.startupChecks = new StartupChecks(new ScriptRunner(builder.connectionFactory), this.keys,
				buckets.origin());
		this.runner = new ScriptRunner(builder.connectionFactory,
				new ReplicaWait(builder.waitReplicas, builder.waitTimeout), this.startupChecks::beforeCall);
		this.scripts = new QueueScripts(this.runner, this.keys);
		this.maxPayloadSize = builder.maxPayloadSize.toBytes();
		this.defaultTtr = builder.defaultTtr;
		this.defaultMaxAttempts = builder.defaultMaxAttempts;
		this.failFast = builder.failFast;
		this.timerEnabled = builder.timerEnabled;
		this.instanceId = builder.instanceId();
		this.clock = new RedisClock(builder.nanoTime);
		this.observer = DelayQueueObserver.composite(builder.observers);
		this.signals = new ReadySignals(this.keys.buckets(), RedisConsumer.readyListProbe(this.runner, this.keys));
		this.recurringJobs = new RedisRecurringJobs(this.scripts, this.keys, this.defaultTtr, this.defaultMaxAttempts,
				this.maxPayloadSize, this.observer, this.signals, this::onRecurringTick);
		this.rateLimits = new RateLimits(this.runner, this.keys, builder.rateLimits);
		this.retained = new RetainedJobs(this.runner, this.scripts, this.keys, builder.retention(Retention::keepsCompleted),
				builder.retention(Retention::limitsFailed), this.observer);
		// a topic with a rate limit takes permits before its jobs: none is reserved at once
		boolean reserveAtOnce = builder.reserveForWaitingConsumers;
		this.timerBackend = new RedisTimerBackend(this.scripts, this.signals, this.instanceId, builder.leaseTtl,
				builder.batchSize, this.observer, this.recurringJobs, this.retained, this::recheckTimers,
				(topic) -> reserveAtOnce && this.rateLimits.of(topic) == null);
		this.timer = new BucketTimer(this.timerBackend, this.keys.buckets(), builder.batchSize,
				builder.coordinationInterval(), builder.guardInterval, this.clock, this.signals::markReady, () -> {
					logger.warn("Redis lost the data of namespace '" + this.keys.namespace() + "' (a restart without"
							+ " persistence, a flush, or an eviction of its keys): the jobs written before are gone;"
							+ " its bucket count is pinned again and the declared recurring jobs are put again");
					this.observer.dataLost(this.keys.namespace());
				});
		this.subscriber = new EventSubscriber(this.connectionFactory, this.keys.channel(), this.signals, this.timer);
	}

	private void recheckTimers() {
		this.timer.recheckAll();
	}

	private void onRecurringTick(int bucket, long tickMillis) {
		this.timer.onRecurringTick(bucket, tickMillis);
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

}
